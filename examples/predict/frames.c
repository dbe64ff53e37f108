/* frames.c: an image pipeline over F synthetic W×W frames: each frame is blurred
 * (3×3 box filter), its gradient magnitude taken (Sobel, |gx| + |gy|), and the
 * gradient's histogram of 64 bins accumulated. Three phases per frame, each ∝ W²:
 * time ∝ F·W².
 *
 *   fragprof trace examples/predict/frames.c --input 'W = uniform_int(48, 128)' \
 *       --input 'F = uniform_int(8, 24)' --stdin '{W} {F}\n' -o traces/
 *
 * Checkpoints: "start" (W, F), "blur" per frame (f), "edges", "histogram",
 * "end" (the histogram's fullest bin).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fragprof.h"

#define BINS 64

int main(void) {
	long W, F;
	if (scanf("%ld %ld", &W, &F) != 2 || W < 3 || W > 8000 || F < 1)
		return 2;
	float *img = malloc(sizeof(float) * (size_t)(W * W));
	float *blur = malloc(sizeof(float) * (size_t)(W * W));
	float *grad = malloc(sizeof(float) * (size_t)(W * W));
	if (!img || !blur || !grad)
		return 3;
	for (long i = 0; i < W * W; i++) /* every page touched before the first frame */
		blur[i] = grad[i] = 0;
	long hist[BINS] = {0};
	FP_POINT_VARS("start", FP_I(W), FP_I(F));
	for (long f = 0; f < F; f++) {
		FP_POINT_VARS("blur", FP_I(f));
		for (long i = 0; i < W * W; i++)
			img[i] = (float)((i * 7 + f * 13) % 101) / 101.0f;
		for (long i = 1; i < W - 1; i++) {
			for (long j = 1; j < W - 1; j++) {
				float s = 0;
				for (long a = -1; a <= 1; a++)
					s += img[(i + a) * W + j - 1] + img[(i + a) * W + j] + img[(i + a) * W + j + 1];
				blur[i * W + j] = s / 9;
			}
		}
		FP_POINT("edges");
		for (long i = 1; i < W - 1; i++) {
			for (long j = 1; j < W - 1; j++) {
				const float *p = blur + i * W + j;
				float gx = p[-W + 1] + 2 * p[1] + p[W + 1] - p[-W - 1] - 2 * p[-1] - p[W - 1];
				float gy = p[W - 1] + 2 * p[W] + p[W + 1] - p[-W - 1] - 2 * p[-W] - p[-W + 1];
				grad[i * W + j] = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
			}
		}
		FP_POINT("histogram");
		for (long i = 1; i < W - 1; i++) {
			for (long j = 1; j < W - 1; j++) {
				long b = (long)(grad[i * W + j] * 8);
				hist[b < BINS ? b : BINS - 1]++;
			}
		}
	}
	long top = 0;
	for (int b = 1; b < BINS; b++)
		if (hist[b] > hist[top])
			top = b;
	FP_POINT_VARS("end", FP_I(top));
	printf("%ld %ld\n", top, hist[top]);
	free(img);
	free(blur);
	free(grad);
	return 0;
}
