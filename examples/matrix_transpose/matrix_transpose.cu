// matrix_transpose: naive vs. shared-memory tiled transpose of a pitched
// 2-D matrix, with a padded tile to avoid shared-memory bank conflicts.
//
// Build: nvcc -O2 -o matrix_transpose matrix_transpose.cu

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
                    cudaGetErrorString(err));                                 \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

#define TILE 32
#define BLOCK_ROWS 8

// in is rows x cols, out is cols x rows; pitches are in elements.
__global__ void transposeNaive(float *out, size_t outPitch, const float *in,
                               size_t inPitch, int rows, int cols)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            out[x * outPitch + (y + j)] = in[(y + j) * inPitch + x];
        }
    }
}

__global__ void transposeTiled(float *out, size_t outPitch, const float *in,
                               size_t inPitch, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * inPitch + x];
        }
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;  // swapped block offsets
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) {
            out[(y + j) * outPitch + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

int main()
{
    int device = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    printf("Device %d: %s\n", device, prop.name);
    printf("  global memory:     %.1f GiB\n", prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    printf("  multiprocessors:   %d\n", prop.multiProcessorCount);
    printf("  max threads/block: %d\n", prop.maxThreadsPerBlock);

    const int rows = 2000, cols = 3000;   // deliberately not multiples of TILE
    float *h_in = (float *)malloc((size_t)rows * cols * sizeof(float));
    float *h_out = (float *)malloc((size_t)rows * cols * sizeof(float));
    for (int i = 0; i < rows * cols; ++i) h_in[i] = (float)i;

    float *d_in, *d_out;
    size_t inPitchBytes, outPitchBytes;
    CUDA_CHECK(cudaMallocPitch((void **)&d_in, &inPitchBytes, cols * sizeof(float), rows));
    CUDA_CHECK(cudaMallocPitch((void **)&d_out, &outPitchBytes, rows * sizeof(float), cols));
    CUDA_CHECK(cudaMemcpy2D(d_in, inPitchBytes, h_in, cols * sizeof(float),
                            cols * sizeof(float), rows, cudaMemcpyHostToDevice));

    dim3 block(TILE, BLOCK_ROWS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    size_t inPitch = inPitchBytes / sizeof(float);
    size_t outPitch = outPitchBytes / sizeof(float);

    int failures = 0;
    for (int variant = 0; variant < 2; ++variant) {
        CUDA_CHECK(cudaMemset2D(d_out, outPitchBytes, 0, rows * sizeof(float), cols));
        if (variant == 0)
            transposeNaive<<<grid, block>>>(d_out, outPitch, d_in, inPitch, rows, cols);
        else
            transposeTiled<<<grid, block>>>(d_out, outPitch, d_in, inPitch, rows, cols);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());

        CUDA_CHECK(cudaMemcpy2D(h_out, rows * sizeof(float), d_out, outPitchBytes,
                                rows * sizeof(float), cols, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                if (h_out[(size_t)c * rows + r] != h_in[(size_t)r * cols + c]) ++bad;
        printf("%-6s transpose: %s\n", variant == 0 ? "naive" : "tiled", bad ? "FAILED" : "ok");
        failures += bad;
    }

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);

    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
