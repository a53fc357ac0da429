/* fw_model.h - the firmware test's model (tests/test_firmware.c), shared with tests/test_ttg.c,
   which traces it, saves it as the .ttg bytes of tests/fw_graph.h, and checks that file is
   what the current tinytrace.h writes. The model: probs = softmax(relu(x W^T + b), axis 1).
   Include <math.h> first. */
#ifndef TT_FW_MODEL_H
#define TT_FW_MODEL_H

/* Hand-chosen model: x [2,3], W [4,3], b [4]. */
static const float fw_x[2][3] = { {0.5f, -1.0f, 2.0f}, {-0.25f, 1.5f, 0.75f} };
static const float fw_w[4][3] = { {0.2f, -0.4f, 0.1f}, {-0.3f, 0.8f, 0.5f},
                                  {1.0f, 0.25f, -0.6f}, {0.05f, 0.0f, 0.9f} };
static const float fw_b[4]    = { 0.1f, -0.2f, 0.3f, 0.0f };

/* The model in doubles: probs = softmax(relu(x W^T + b), axis 1); total = sum(probs * h). */
static inline void fw_reference(double probs[2][4], double *total) {
    int i, j, k;
    *total = 0.0;
    for (i = 0; i < 2; i++) {
        double h[4], m = -1e300, s = 0.0;
        for (j = 0; j < 4; j++) {
            double acc = (double)fw_b[j];
            for (k = 0; k < 3; k++) acc += (double)fw_x[i][k] * (double)fw_w[j][k];
            h[j] = acc > 0.0 ? acc : 0.0;
            if (h[j] > m) m = h[j];
        }
        for (j = 0; j < 4; j++) { probs[i][j] = exp(h[j] - m); s += probs[i][j]; }
        for (j = 0; j < 4; j++) { probs[i][j] /= s; *total += probs[i][j] * h[j]; }
    }
}

#endif
