#!/bin/sh
# The CONTENTS table at the top of tinytrace.h lists every ">>" section banner, in file
# order, and nothing else (make test runs this). Prints both lists when they differ.
h=${1:-tinytrace.h}
contents=$(sed -n '/^   CONTENTS/,/^$/p' "$h" | sed -n 's/^     >>\([a-z0-9-]*\).*/\1/p')
banners=$(sed -n 's/^ \* >>\([a-z0-9-]*\) .*/\1/p; s/^ \* >>\([a-z0-9-]*\)$/\1/p' "$h")
if [ "$contents" != "$banners" ]; then
    echo "check_contents: CONTENTS and the >> banners differ"
    echo "CONTENTS: $(echo $contents)"
    echo "banners:  $(echo $banners)"
    exit 1
fi
echo "check_contents: $(echo "$banners" | wc -l) sections, CONTENTS matches the banners"
