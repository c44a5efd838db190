// Run with scripts/gpu_shim_check.py's setup: build this CUDA program with nvcc, and its hipify-py translation with
// nvcc + HIP's NVIDIA-platform headers after turning the `#if defined(__HIP_PLATFORM_NVIDIA__)` of each
// cooperative-groups block into `#if 0` (so the AMD equivalent is compiled); both outputs must be identical.
// cg::reduce / inclusive_scan / exclusive_scan on tiles: the CUDA original and hipify-py's equivalents
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
namespace cg = cooperative_groups;

template <unsigned N>
__global__ void tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int* o = out + i * 8;
  o[0] = cg::reduce(tile, v, cg::plus<int>());
  o[1] = cg::reduce(tile, v, cg::less<int>());
  o[2] = cg::reduce(tile, v, cg::greater<int>());
  o[3] = cg::reduce(tile, v, cg::bit_xor<int>());
  o[4] = cg::inclusive_scan(tile, v);
  o[5] = cg::exclusive_scan(tile, v);
  o[6] = cg::inclusive_scan(tile, v, cg::greater<int>());
  o[7] = cg::exclusive_scan(tile, v, cg::bit_or<int>());
}

template <unsigned N>
void run(const int* in, int* out, int* host, int n) {
  tiles<N><<<n / 256, 256>>>(in, out);
  cudaMemcpy(host, out, n * 8 * sizeof(int), cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int i = 0; i < n * 8; ++i) sum = sum * 31 + host[i];
  printf("tile %u: checksum %lld first %d %d %d %d %d %d %d %d\n", N, sum, host[8 * 5], host[8 * 5 + 1], host[8 * 5 + 2],
         host[8 * 5 + 3], host[8 * 5 + 4], host[8 * 5 + 5], host[8 * 5 + 6], host[8 * 5 + 7]);
}

int main() {
  const int n = 1 << 16;
  int* h = new int[n * 8];
  for (int i = 0; i < n; ++i) h[i] = (int)((i * 2654435761u) >> 7) % 1000 - 500;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * 8 * sizeof(int));
  cudaMemcpy(in, h, n * sizeof(int), cudaMemcpyHostToDevice);
  run<4>(in, out, h, n);
  run<8>(in, out, h, n);
  run<16>(in, out, h, n);
  run<32>(in, out, h, n);
  return 0;
}
