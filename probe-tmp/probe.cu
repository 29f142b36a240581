#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
__global__ void k(int* p) { if (p) *p = 1; }
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  double t0 = now(); int n = 0;
  cudaGetDeviceCount(&n); double t1 = now();
  cudaDeviceProp p{}; if (argc > 1 && argv[1][0]=='p') cudaGetDeviceProperties(&p, 0); double t2 = now();
  int major=0; cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0); double t2b = now();
  cudaSetDevice(0); double t3 = now();
  void* s = nullptr; cudaMalloc(&s, 16 << 20); double t4 = now();
  cudaFree(s); double t5 = now();
  k<<<1,1>>>(nullptr); cudaDeviceSynchronize(); double t6 = now();
  void* h = nullptr; cudaMallocHost(&h, 64 << 20); double t7 = now();
  std::printf("count %.1f props %.1f attr %.1f setdev %.1f malloc(ctx) %.1f free %.1f kernel %.1f pinned64M %.1f total %.1f ms\n", t1-t0, t2-t1, t2b-t2, t3-t2b, t4-t3, t5-t4, t6-t5, t7-t6, t7-t0);
}
