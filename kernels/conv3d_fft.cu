// Lin et al.'s HYBRID FOURIER 3-D convolution, without cuFFT (whose 274 MB library cannot travel
// to the GPU machine): each input frame, mirrored by r into a P × Q power-of-two frame, is
// transformed by a 2-D FFT (radix-2, one block per row, then per column, in shared memory); the
// kernel's k slices likewise, flipped into a convolution; each output frame's spectrum is the
// 1-D temporal sum Σ_dt G_dt · F_(t+dt); an inverse 2-D FFT and the window at (r, r) give the
// output. Equal to the direct convolution within float rounding (tested).
#include <lacuna/kernels/conv3d_kernels.h>
#include <lacuna/kernels/border.h>

#include <cuda_runtime.h>

namespace lacuna::kernels {
namespace {

constexpr int kFftThreads = 256;

__device__ __forceinline__ int reverse_bits(const int i, const int bits) {
    return static_cast<int>(__brev(static_cast<unsigned>(i)) >> (32 - bits));
}

/// One complex line of n = 2^bits values at data + line * line_step, element i at i * stride,
/// transformed in place in shared memory (iterative radix-2 Cooley–Tukey); inverse: conjugate
/// twiddles and a 1/n scale.
__global__ void fft_lines_kernel(float2* data, const int n, const int bits,
                                 const long long line_step, const long long stride,
                                 const bool inverse) {
    extern __shared__ float2 line[];
    float2* base = data + static_cast<long long>(blockIdx.x) * line_step;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        line[reverse_bits(i, bits)] = base[static_cast<long long>(i) * stride];
    __syncthreads();
    const float sign = inverse ? 1.0f : -1.0f;
    for (int half = 1; half < n; half *= 2) {
        for (int j = threadIdx.x; j < n / 2; j += blockDim.x) {
            const int group = j / half, k = j % half;
            const int a = group * 2 * half + k, b = a + half;
            float s, c;
            sincospif(sign * static_cast<float>(k) / static_cast<float>(half), &s, &c);
            const float2 u = line[a], v = line[b];
            const float2 t = make_float2(c * v.x - s * v.y, c * v.y + s * v.x);
            line[a] = make_float2(u.x + t.x, u.y + t.y);
            line[b] = make_float2(u.x - t.x, u.y - t.y);
        }
        __syncthreads();
    }
    const float scale = inverse ? 1.0f / static_cast<float>(n) : 1.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        base[static_cast<long long>(i) * stride] =
            make_float2(line[i].x * scale, line[i].y * scale);
}

/// Frame t of the input, mirrored by r, into a P × Q complex frame (zeros beyond).
__global__ void pad_frame_kernel(const Conv3dArgs a, const int t, float2* out, const int P,
                                 const int Q) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= P || y >= Q) return;
    const int r = a.k / 2;
    float v = 0.0f;
    if (x < a.width + 2 * r && y < a.height + 2 * r) {
        const int sx = border::reflect101(x - r, a.width), sy = border::reflect101(y - r, a.height);
        v = a.in[(static_cast<long long>(t) * a.height + sy) * a.pitch + sx];
    }
    out[static_cast<long long>(y) * P + x] = make_float2(v, 0.0f);
}

/// Slice dt of the kernel as a convolution: g(e) = w(r − e) at index e mod P (and in y).
__global__ void pad_kernel_kernel(const Conv3dArgs a, const int dt, float2* out, const int P,
                                  const int Q) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= P || y >= Q) return;
    const int k = a.k, r = k / 2;
    const int ex = x <= r ? x : x - P, ey = y <= r ? y : y - Q;  // e in (−P/2, P/2]
    float v = 0.0f;
    if (ex >= -r && ex <= r && ey >= -r && ey <= r)
        v = a.weights[(dt * k + (r - ey)) * k + (r - ex)];
    out[static_cast<long long>(y) * P + x] = make_float2(v, 0.0f);
}

/// acc (+)= G · F over a whole spectrum.
__global__ void multiply_add_kernel(const float2* g, const float2* f, float2* acc,
                                    const long long count, const bool first) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float2 a = g[i], b = f[i];
    const float2 p = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
    acc[i] = first ? p : make_float2(acc[i].x + p.x, acc[i].y + p.y);
}

/// The real part of the window at (r, r) into output frame t.
__global__ void crop_kernel(const Conv3dArgs a, const int t, const float2* frame, const int P) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= a.width || y >= a.height) return;
    const int r = a.k / 2;
    a.out[(static_cast<long long>(t) * a.height + y) * a.pitch + x] =
        frame[static_cast<long long>(y + r) * P + x + r].x;
}

int log2_of(const int n) {
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    return bits;
}

cudaError_t fft_2d(float2* frame, const int P, const int Q, const bool inverse,
                   const cudaStream_t stream) {
    const int pb = log2_of(P), qb = log2_of(Q);
    const int threads_rows = P / 2 < kFftThreads ? (P / 2 > 0 ? P / 2 : 1) : kFftThreads;
    const int threads_cols = Q / 2 < kFftThreads ? (Q / 2 > 0 ? Q / 2 : 1) : kFftThreads;
    fft_lines_kernel<<<Q, threads_rows, sizeof(float2) * P, stream>>>(frame, P, pb, P, 1, inverse);
    fft_lines_kernel<<<P, threads_cols, sizeof(float2) * Q, stream>>>(frame, Q, qb, 1, P, inverse);
    return cudaGetLastError();
}

}  // namespace

std::size_t conv3d_fft_scratch_floats(const int width, const int height, const int k,
                                      const int in_frames) {
    const int r = k / 2;
    const std::size_t P = std::size_t(1) << log2_of(width + 2 * r);
    const std::size_t Q = std::size_t(1) << log2_of(height + 2 * r);
    // Spectra of every input frame and kernel slice, plus one accumulator; complex = 2 floats.
    return 2 * P * Q * static_cast<std::size_t>(in_frames + k + 1);
}

cudaError_t launch_conv3d_fft(const Conv3dArgs& a, float* scratch, const cudaStream_t stream) {
    const int r = a.k / 2;
    const int P = 1 << log2_of(a.width + 2 * r), Q = 1 << log2_of(a.height + 2 * r);
    if (P > 4096 || Q > 4096) return cudaErrorInvalidValue;  // one line must fit shared memory
    const long long frame = static_cast<long long>(P) * Q;
    float2* spectra = reinterpret_cast<float2*>(scratch);  // input frames, then kernel slices
    float2* kernel_spectra = spectra + frame * a.in_frames;
    float2* acc = kernel_spectra + frame * a.k;
    const dim3 block(32, 8);
    const dim3 grid((P + 31) / 32, (Q + 7) / 8);
    for (int t = 0; t < a.in_frames; ++t) {
        pad_frame_kernel<<<grid, block, 0, stream>>>(a, t, spectra + frame * t, P, Q);
        if (const cudaError_t e = fft_2d(spectra + frame * t, P, Q, false, stream); e) return e;
    }
    for (int dt = 0; dt < a.k; ++dt) {
        pad_kernel_kernel<<<grid, block, 0, stream>>>(a, dt, kernel_spectra + frame * dt, P, Q);
        if (const cudaError_t e = fft_2d(kernel_spectra + frame * dt, P, Q, false, stream); e)
            return e;
    }
    const unsigned blocks = static_cast<unsigned>((frame + 255) / 256);
    const dim3 out_grid((a.width + 31) / 32, (a.height + 7) / 8);
    for (int t = 0; t + a.k <= a.in_frames; ++t) {
        for (int dt = 0; dt < a.k; ++dt)
            multiply_add_kernel<<<blocks, 256, 0, stream>>>(
                kernel_spectra + frame * dt, spectra + frame * (t + dt), acc, frame, dt == 0);
        if (const cudaError_t e = fft_2d(acc, P, Q, true, stream); e) return e;
        crop_kernel<<<out_grid, block, 0, stream>>>(a, t, acc, P);
    }
    return cudaGetLastError();
}

}  // namespace lacuna::kernels
