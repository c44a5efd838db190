// streams_events: overlap host<->device copies with compute using several
// streams and pinned host memory, and time both variants with events.
//
// Build: nvcc -O2 -o streams_events streams_events.cu

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        const cudaError_t e = (call);                                         \
        if (e != cudaSuccess) {                                               \
            fprintf(stderr, "error %d (%s) at %s:%d\n", (int)e,               \
                    cudaGetErrorString(e), __FILE__, __LINE__);               \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

#define NUM_STREAMS 4

__global__ void polynomial(float *data, int n, int offset)
{
    int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < offset + n) {
        float x = data[i];
        // Enough arithmetic per element that overlap is visible.
        float y = 0.0f;
        for (int k = 0; k < 64; ++k) {
            y = y * x + 0.5f;
        }
        data[i] = y;
    }
}

static float reference(float x)
{
    float y = 0.0f;
    for (int k = 0; k < 64; ++k) y = y * x + 0.5f;
    return y;
}

int main()
{
    const int n = 1 << 22;
    const int chunk = n / NUM_STREAMS;
    const size_t bytes = n * sizeof(float);
    const size_t chunkBytes = chunk * sizeof(float);
    const int block = 256;

    float *h_in = NULL, *h_out = NULL, *d_data = NULL;
    CHECK(cudaMallocHost((void **)&h_in, bytes));                          // pinned
    CHECK(cudaHostAlloc((void **)&h_out, bytes, cudaHostAllocDefault));    // pinned
    CHECK(cudaMalloc((void **)&d_data, bytes));

    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 1000) / 1000.0f;

    cudaStream_t streams[NUM_STREAMS];
    for (int s = 0; s < NUM_STREAMS; ++s) {
        CHECK(cudaStreamCreate(&streams[s]));
    }

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    // 1) Sequential: one copy in, one kernel, one copy out on the default stream.
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpy(d_data, h_in, bytes, cudaMemcpyHostToDevice));
    polynomial<<<(n + block - 1) / block, block>>>(d_data, n, 0);
    CHECK(cudaMemcpy(h_out, d_data, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float msSequential = 0.0f;
    CHECK(cudaEventElapsedTime(&msSequential, start, stop));

    // 2) Pipelined: each stream copies, computes and copies back its own chunk.
    CHECK(cudaMemset(d_data, 0, bytes));
    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < NUM_STREAMS; ++s) {
        int offset = s * chunk;
        CHECK(cudaMemcpyAsync(d_data + offset, h_in + offset, chunkBytes,
                              cudaMemcpyHostToDevice, streams[s]));
        polynomial<<<(chunk + block - 1) / block, block, 0, streams[s]>>>(d_data, chunk, offset);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out + offset, d_data + offset, chunkBytes,
                              cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float msStreams = 0.0f;
    CHECK(cudaEventElapsedTime(&msStreams, start, stop));

    for (int s = 0; s < NUM_STREAMS; ++s) {
        CHECK(cudaStreamSynchronize(streams[s]));
    }

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float ref = reference(h_in[i]);
        if (fabsf(h_out[i] - ref) > 1e-3f * fmaxf(1.0f, fabsf(ref))) ++bad;
    }

    printf("sequential: %8.3f ms\n", msSequential);
    printf("%d streams:  %8.3f ms (speedup %.2fx)\n", NUM_STREAMS, msStreams,
           msSequential / msStreams);

    for (int s = 0; s < NUM_STREAMS; ++s) {
        CHECK(cudaStreamDestroy(streams[s]));
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_data));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));

    printf("%s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
