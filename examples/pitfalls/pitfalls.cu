// pitfalls: row statistics (mean / variance / count of positives) for a
// feature matrix, tuned for recent NVIDIA GPUs.
//
// Build: nvcc -O3 -arch=sm_80 -rdc=true -o pitfalls pitfalls.cu -lcudadevrt

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <nvtx3/nvToolsExt.h>

namespace cg = cooperative_groups;

#if CUDA_VERSION >= 11000
#define HAS_L2_PERSISTENCE 1
#else
#define HAS_L2_PERSISTENCE 0
#endif

#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 11
#define FULL_MASK 0xffffffffu
#endif

#define CK(x)                                                                 \
    do {                                                                      \
        cudaError_t e = (x);                                                  \
        if (e != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                    cudaGetErrorString(e));                                   \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__managed__ int g_rowsProcessed;
__device__ unsigned long long g_lastRowNs;

__device__ __forceinline__ unsigned laneId()
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__device__ __forceinline__ unsigned long long globalTimerNs()
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

__device__ __forceinline__ float warpSum(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffff, v, o, 32);
    return v;
}

__global__ void __launch_bounds__(256, 4)
rowStats(float *x, float *mean, float *var, int *positives, int cols)
{
    __shared__ float warp_sums[32];
    __shared__ float warp_sq[32];
    __shared__ int warp_pos[32];

    const int row = blockIdx.x;
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int nwarps = blockDim.x >> 5;

    float s = 0.0f, sq = 0.0f;
    int pos = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = __ldg(&x[(size_t)row * cols + c]);
        s += v;
        sq += v * v;
        unsigned mask = __ballot_sync(0xffffffff, v > 0.0f);
        if ((threadIdx.x & 31) == 0) pos += __popc(mask);
    }

    s = warpSum(s);
    sq = warpSum(sq);
    if (lane == 0) {
        warp_sums[warp] = s;
        warp_sq[warp] = sq;
        warp_pos[warp] = pos;
    }
    __syncthreads();

    if (warp == 0) {
        s = lane < nwarps ? warp_sums[lane] : 0.0f;
        sq = lane < nwarps ? warp_sq[lane] : 0.0f;
        pos = lane < nwarps ? warp_pos[lane] : 0;
        s = warpSum(s);
        sq = warpSum(sq);
        cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
        pos = cg::reduce(tile, pos, cg::plus<int>());
        if (laneId() == 0) {
            float m = s / cols;
            mean[row] = m;
            var[row] = sq / cols - m * m;
            positives[row] = pos;
            atomicAdd(&g_rowsProcessed, 1);
            g_lastRowNs = globalTimerNs();
        }
    }
}

__global__ void spinUntilReady(volatile int *flag)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    while (*flag == 0) __nanosleep(100);
#else
    while (*flag == 0) { }
#endif
    if (__activemask() == FULL_MASK && threadIdx.x == 0) *flag = 2;
}

__global__ void normalize(float *x, const float *mean, const float *var, int cols)
{
    extern __shared__ float rowBuf[];
    const int row = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        rowBuf[c] = x[(size_t)row * cols + c];
    __syncthreads();
    const float inv = rsqrtf(var[row] + 1e-5f);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        x[(size_t)row * cols + c] = (rowBuf[c] - mean[row]) * inv;
}

// Started by the host once, then launches the per-row work from the device (needs -rdc=true).
__global__ void launchNormalize(float *x, const float *mean, const float *var, int rows, int cols,
                                size_t shmem)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        normalize<<<rows, 256, shmem>>>(x, mean, var, cols);
    }
}

int main()
{
    const int rows = 4096, cols = 20000;
    const size_t bytes = (size_t)rows * cols * sizeof(float);

    int runtimeVersion = 0;
    CK(cudaRuntimeGetVersion(&runtimeVersion));
    if (runtimeVersion < 11000) {
        fprintf(stderr, "needs CUDA 11 or newer (have %d)\n", runtimeVersion);
        return 1;
    }

    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("%s, sm_%d%d, L2 persisting max %d bytes, access window max %d bytes, host NUMA node %d\n",
           prop.name, prop.major, prop.minor, prop.persistingL2CacheMaxSize,
           prop.accessPolicyMaxWindowSize, prop.hostNumaId);

    float *x, *mean, *var;
    int *positives, *flag;
    CK(cudaMallocManaged(&x, bytes));
    CK(cudaMallocManaged(&mean, rows * sizeof(float)));
    CK(cudaMallocManaged(&var, rows * sizeof(float)));
    CK(cudaMallocManaged(&positives, rows * sizeof(int)));
    CK(cudaMallocManaged(&flag, sizeof(int)));
    for (size_t i = 0; i < (size_t)rows * cols; ++i) x[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
    *flag = 1;
    g_rowsProcessed = 0;

    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    int streamDevice = -1;
    CK(cudaStreamGetDevice(stream, &streamDevice));
    printf("stream on device %d\n", streamDevice);

#if CUDART_VERSION >= 13000
    cudaMemLocation loc = {};
    loc.type = cudaMemLocationTypeDevice;
    loc.id = dev;
    CK(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, loc));
    CK(cudaMemPrefetchAsync(x, bytes, loc, 0, stream));
#else
    CK(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, dev));
    CK(cudaMemPrefetchAsync(x, bytes, dev, stream));
#endif

#if HAS_L2_PERSISTENCE
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize));
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = x;
    attr.accessPolicyWindow.num_bytes = bytes < (size_t)prop.accessPolicyMaxWindowSize
                                            ? bytes : (size_t)prop.accessPolicyMaxWindowSize;
    attr.accessPolicyWindow.hitRatio = 0.6f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr));
#endif

    nvtxRangePushA("row_stats");
    rowStats<<<rows, 256, 0, stream>>>(x, mean, var, positives, cols);
    CK(cudaGetLastError());
    nvtxRangePop();

    spinUntilReady<<<1, 32, 0, stream>>>(flag);

    const size_t shmem = cols * sizeof(float);
    CK(cudaFuncSetAttribute(normalize, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
    if (shmem <= 96 * 1024) {
        launchNormalize<<<1, 1, 0, stream>>>(x, mean, var, rows, cols, shmem);
        CK(cudaGetLastError());
    }
    CK(cudaStreamSynchronize(stream));

#ifdef __NVCC__
    CK(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                          cudaFlushGPUDirectRDMAWritesToOwner));
#endif
#if HAS_L2_PERSISTENCE
    CK(cudaCtxResetPersistingL2Cache());
#endif

    long long totalPos = 0;
    for (int r = 0; r < rows; ++r) totalPos += positives[r];
    printf("rows processed: %d, row 0 mean %.4f var %.4f, positives %lld, flag %d\n",
           g_rowsProcessed, mean[0], var[0], totalPos, *flag);

    CK(cudaStreamDestroy(stream));
    CK(cudaFree(x));
    CK(cudaFree(mean));
    CK(cudaFree(var));
    CK(cudaFree(positives));
    CK(cudaFree(flag));
    return g_rowsProcessed == rows ? 0 : 1;
}
