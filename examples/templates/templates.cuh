// templates.cuh: element-wise functors and templated kernels.
#ifndef TEMPLATES_CUH
#define TEMPLATES_CUH

#include <cuda_runtime.h>

template <typename T>
struct Square {
    __host__ __device__ T operator()(T x) const { return x * x; }
};

template <typename T>
struct Affine {
    T a, b;
    __host__ __device__ T operator()(T x) const { return a * x + b; }
};

// out[i] = factor * in[i]; BLOCK is the block size the kernel is compiled for.
template <typename T, int BLOCK>
__global__ void scale(const T *in, T *out, T factor, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = factor * in[i];
}

// Apply any functor element-wise, grid-stride loop.
// T is deduced from the data pointer.
template <typename Op, int BLOCK, typename T>
__global__ void apply(Op op, T *data, int n)
{
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) {
        data[i] = op(data[i]);
    }
}

namespace ns {

// Fill with a linear ramp: data[i] = start + i * step.
template <typename T>
__global__ void kernel(T *data, T start, T step, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = start + static_cast<T>(i) * step;
}

} // namespace ns

#endif // TEMPLATES_CUH
