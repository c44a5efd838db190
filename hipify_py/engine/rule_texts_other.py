"""The texts of the rules HIP2xx-HIP5xx (portability, version macros, build/input, --verify's
compiler errors); engine/rule_texts.py assembles the registry."""

from __future__ import annotations

from hipify_py.engine.diagnostics import Rule, Severity

OTHER_RULES: tuple[Rule, ...] = (
    Rule(
        "HIP201",
        "warp-size-literal",
        Severity.WARNING,
        "Literal 32 used as the warp size",
        "Use `warpSize` in run-time arithmetic (from ROCm 7.0 it is no constant expression); where a "
        "constant is needed, the wavefront size of the build's GPUs: 64 on CDNA (gfx9), 32 on RDNA.",
        "Code that hard-codes 32 lanes per warp (lane = tid % 32, warp = tid / 32, shuffle width 32, "
        "reductions starting at offset 16, per-warp arrays of 32) computes wrong indices or skips "
        "half the lanes on wave64 hardware (gfx9/CDNA: MI100, MI200, MI300).",
    ),
    Rule(
        "HIP202",
        "warp-mask-32bit",
        Severity.WARNING,
        "32-bit lane mask: AMD wavefront masks are 64-bit",
        "Store ballot/activemask results in uint64_t (or unsigned long long) and build masks from warpSize.",
        "__ballot/__activemask return 64-bit masks on wave64 GPUs; storing them in 32-bit integers "
        "or passing 0xffffffff as a full mask silently drops lanes 32-63.",
    ),
    Rule(
        "HIP203",
        "sync-warp-intrinsic",
        Severity.WARNING,
        "Warp intrinsic with explicit mask needs HIP >= 6.2",
        "With older HIP use the mask-free forms (__shfl_down, __ballot, __any, __all) when all "
        "lanes participate, or raise --hip-version.",
        "The *_sync warp intrinsics (__shfl_sync, __ballot_sync, __syncwarp, __activemask, ...) "
        "exist in HIP only since 6.2 (and require 64-bit masks). hipify-py adapts the calls it can "
        "structure to the target (mappings/version-adaptations.yaml: mask-free forms before 6.2, "
        "64-bit masks and HIP_ENABLE_WARP_SYNC_BUILTINS from 6.2); this finding is left only where "
        "it could not.",
    ),
    Rule(
        "HIP204",
        "inline-ptx",
        Severity.ERROR,
        "Inline PTX assembly or PTX-only intrinsic",
        "Replace it with a HIP intrinsic or builtin (e.g. __lane_id(), __builtin_amdgcn_*), or "
        "guard it with `#ifdef __HIP_PLATFORM_AMD__`.",
        "asm()/asm volatile() blocks contain NVIDIA PTX, which the AMD compiler cannot assemble; "
        "PTX special registers such as %laneid have AMD counterparts only through builtins. Reported "
        "once per asm statement; not reported for asm hipcc never compiles (inside `#if __CUDA_ARCH__ "
        ">= 800` and the like: the guard gets HIP302), empty asm barriers, asm labels on declarations, "
        "AMDGCN assembly, and host assembly: asm outside __device__/__global__ functions whose "
        "template does not look like PTX (x86 rdtsc/fldcw, PowerPC mftb, ARM mrs under CPU #ifdefs), "
        "which hipcc's host compiler assembles. Outside device functions (a qualifier hidden in a "
        "macro, a #define body) PTX is recognised by its shape: typed instructions (mov.u32, "
        "ld.global.v4.b32), PTX registers (%laneid) and directives.",
    ),
    Rule(
        "HIP205",
        "managed-memory",
        Severity.WARNING,
        "Managed (unified) memory: supported, but coherence and speed depend on the AMD GPU",
        "Run with HSA_XNACK=1 on GPUs that support XNACK (MI200, MI300) for page migration; "
        "otherwise managed memory may be pinned host memory and slow. Prefer explicit hipMalloc/"
        "hipMemcpy on hot paths.",
        "hipMallocManaged, __managed__ and the advise/prefetch calls compile, but page migration "
        "needs XNACK (HSA_XNACK=1) and is unavailable on consumer GPUs; hipMemAdvise hints differ.",
    ),
    Rule(
        "HIP206",
        "launch-bounds-min-blocks",
        Severity.WARNING,
        "__launch_bounds__ second argument has another meaning in HIP",
        "Drop the second argument or convert it: HIP expects min waves per EU "
        "(roughly minBlocks * blockSize / (warpSize * 4)).",
        "In CUDA the optional second argument is the minimum number of resident blocks per SM; "
        "HIP interprets it as MIN_WARPS_PER_EXECUTION_UNIT, so occupancy tuning changes. Files written "
        "for AMD by hand (amdgcn builtins, __gfx* guards, composable_kernel) are not reported.",
    ),
    Rule(
        "HIP207",
        "ldg-non-const",
        Severity.INFO,
        "__ldg on memory that is not const",
        "Declare the pointer `const T* __restrict__`; the compiler then emits the cached load itself.",
        "HIP implements __ldg as an ordinary load; the read-only-cache benefit only comes from "
        "const __restrict__ pointers.",
    ),
    Rule(
        "HIP208",
        "lds-limit",
        Severity.ERROR,
        "Shared memory above the 64 KiB LDS limit of AMD GPUs",
        "Tile the data so one workgroup uses at most 64 KiB, or keep part of it in registers "
        "or global memory.",
        "NVIDIA GPUs allow up to 227 KiB of shared memory per block with an opt-in attribute; AMD "
        "GPUs provide 64 KiB of LDS per workgroup (MI300 included), so the launch fails.",
    ),
    Rule(
        "HIP209",
        "warp-mask-partial",
        Severity.WARNING,
        "Warp intrinsic with a lane mask that is not a full mask: check it on 64-lane wavefronts",
        "Build lane masks as 64-bit values from warpSize (e.g. `__ballot(cond)` results kept in "
        "unsigned long long) or use the full mask when every lane takes part.",
        "CUDA lane masks are 32-bit; AMD wavefronts have 64 lanes. A full mask (0xffffffff, ~0, -1, "
        "a #define of one) is adapted exactly (dropped for HIP < 6.2, widened to 64 bits for 6.2+). "
        "Any other mask is adapted as written: for HIP < 6.2 shuffles lose it (every active lane "
        "takes part) and votes are masked with it; for 6.2+ it is cast to 64 bits, and HIP's "
        "builtins check that it names every lane that runs the call, so a 32-bit mask built for 32 "
        "lanes fails on lanes 32-63.",
    ),
    Rule(
        "HIP210",
        "guarded-hip-device-function",
        Severity.WARNING,
        "Definition of a device function HIP already defines: guarded out on AMD",
        "Check that HIP's function does what this definition did (HIP's atomics are the standard ones).",
        "HIP's headers define this device function with the same parameter types, so the definition "
        "would be a redefinition error; it is wrapped in `#if !defined(__HIP_PLATFORM_AMD__)` so "
        "ROCm builds use HIP's function and other builds keep the definition.",
    ),
    Rule(
        "HIP212",
        "merged-behaviour",
        Severity.WARNING,
        "After renaming, some calls or cases run other code than on CUDA",
        "Check the code the message names: on HIP it runs for both CUDA names/values (or types).",
        "Where HIP merges two CUDA types or enumerators, the tool keeps the first definition or case "
        "label and disables the later one (#if 0 / commented label), since HIP cannot tell the two "
        "apart; this finding says the disabled code differed, so the merged values now run the first "
        "one's code. Also reported: a user operator on a vector type that is not element-wise, "
        "where calls with another scalar type (e.g. int or double for float) now pick HIP's "
        "broadcasting template operator instead.",
    ),
    Rule(
        "HIP213",
        "merged-duplicate-disabled",
        Severity.INFO,
        "Code made redundant by HIP disabled (same behaviour)",
        "Nothing to do; delete the disabled code when the CUDA build is gone.",
        "A later overload or case label that, after renaming, repeats an earlier one and does the same "
        "was disabled; a user's element-wise operator on a vector type that HIP already defines was "
        "guarded with `#if !defined(__HIP_PLATFORM_AMD__)` (still used on NVIDIA).",
    ),
    Rule(
        "HIP215",
        "missing-overload",
        Severity.ERROR,
        "HIP has no overload of this function for the argument's type",
        "Convert the argument to a type HIP's overloads take (shuffle a 16-bit float's bits as an int, "
        "accumulate in float), or raise --hip-version if a newer HIP has the overload.",
        "CUDA overloads some device functions for 16-bit floating-point types (`__shfl_xor(half2, int)`, "
        "`atomicAdd(__half2 *, __half2)`) that HIP's headers do not declare for the target release: the "
        "call fails with `no matching function` or `ambiguous`. Reported only where the code spells "
        "the type (a cast in the argument, the declaration of the named variable in the function or "
        "at file scope), for HIP releases checked to lack the overload (detector_data.OVERLOAD_GAPS).",
    ),
    Rule(
        "HIP216",
        "dim3-from-uint3",
        Severity.INFO,
        "make_uint3 where a dim3 is wanted, written dim3",
        "Nothing to do: `dim3(x, y, z)` is the same dim3 as CUDA's `dim3(make_uint3(x, y, z))`.",
        "CUDA's dim3 has a constructor from uint3, so `dim3 grid = make_uint3(...)`, `grid = "
        "make_uint3(...)` and `k<<<make_uint3(...), ...>>>` compile with nvcc. HIP's dim3 (every "
        "release) only has `dim3(uint32_t x, uint32_t y, uint32_t z)`: `no viable conversion`. Where the "
        "value is known to become a dim3 (a dim3 variable, a launch's grid or block), the call is "
        "written `dim3(...)`.",
    ),
    Rule(
        "HIP217",
        "device-only-math-on-host",
        Severity.ERROR,
        "CUDA math function called from host code: HIP defines it for the device only",
        "Compute it with the C library on the host (`1.0f / sqrtf(x)` for rsqrtf(x), `sin(M_PI * x)` for "
        "sinpi(x)) or move the call into device code.",
        "CUDA declares its math API `__host__ __device__` and its math_functions.hpp has host "
        "versions of rsqrtf, sinpi, normcdf, erfcinv, rcbrt and others, so host code calls them "
        "freely. HIP defines them for the device only: `no matching function for call`. The names "
        "come from scripts/probe_host_math.py, which compiles the same host calls with nvcc and with "
        "hipcc (mappings/hip-device-only-math-<version>.yaml). Reported only in a function that "
        "surely runs on the host (no __device__, no qualifier macro, not a device lambda).",
    ),
    Rule(
        "HIP218",
        "warp-size-not-constant",
        Severity.ERROR,
        "warpSize used as a constant expression (ROCm 7)",
        "Use a constant of your own for the wavefront size the build targets, e.g. "
        "`#if defined(__GFX9__) ... 64 #else 32 #endif` in device code (CDNA runs 64 lanes, RDNA 32); "
        "keep warpSize for run-time arithmetic.",
        "ROCm 7.0 turned warpSize from a constexpr int into a device object read from the hardware "
        "(one binary may run on wave32 and wave64 GPUs), so an array bound, a template argument, a "
        "static_assert, a case label or a constexpr initializer that uses it no longer compiles "
        "(checked with ROCm 7.2's hipcc; 6.4 accepts it). CUDA's warpSize is no constant either, so "
        "such code is HIP code, which the translation leaves as it is. Reported for targets from 7.0: "
        "an error from 7.2, where it was checked, a warning for 7.0 and 7.1.",
    ),
    Rule(
        "HIP219",
        "cub-block-not-wavefront",
        Severity.ERROR,
        "CUB warp-transpose load/store on a block size the AMD wavefront does not divide",
        "Use a block size that is a multiple of 64 for BLOCK_LOAD/STORE_WARP_TRANSPOSE on gfx9 (CDNA), "
        "or another algorithm (BLOCK_LOAD_TRANSPOSE, BLOCK_LOAD_DIRECT) for the small blocks.",
        "CUB's warp-transpose algorithms move data through whole warps: CUDA needs the block size to be "
        "a multiple of 32. hipCUB maps them to rocPRIM, which static_asserts a multiple of the hardware "
        "wavefront size: 64 on gfx9 (MI100-MI300; the default --offload-arch gfx90a), so a 32-thread "
        "block fails to compile (checked with ROCm 6.4 and 7.2). The block size is followed through "
        "the file's template instantiations and #define/constexpr constants; each value that is no "
        "multiple of 64 is reported where it is written.",
    ),
    Rule(
        "HIP220",
        "half-bf16-cast",
        Severity.ERROR,
        "bf16 value cast to half (or half to bf16): ambiguous in HIP",
        "Convert through float: __float2half(__bfloat162float(b)), __float2bfloat16(__half2float(h)).",
        "CUDA converts between __nv_bfloat16 and __half through float. HIP's __hip_bfloat16 converts to "
        "many arithmetic types and __half constructs from as many, so the cast is ambiguous (checked with "
        "ROCm 6.4 and 7.2; earlier releases are not claimed). Reported where both types are spelled: the "
        "cast's type and the operand's declaration, with template parameters followed through the file's "
        "explicit instantiations.",
    ),
    Rule(
        "HIP223",
        "device-overload-written",
        Severity.INFO,
        "A device overload the target HIP lacks: an equivalent definition was written into the file",
        "Nothing to do; the definition is off on HIP's NVIDIA platform (CUDA has its own) and where the "
        "file defines the function itself. Delete it once HIP declares the overload.",
        "CUDA declares `atomicAdd` for `__half`, `__half2`, `__nv_bfloat16` and `__nv_bfloat162`, and "
        "`cudaGetErrorString`/`cudaGetErrorName` for device code; no HIP release does (probed per "
        "release: scripts/probe_device_gaps.py). Where the code spells the atomic's pointer type (a cast, "
        "the variable's declaration) or calls the error functions in a __device__/__global__ function, "
        "hipify-py writes the overload once per file, before the declaration that first uses it, wrapped "
        "in `#if !defined(HIPIFY_PY_SHIM_<name>) && !defined(__HIP_PLATFORM_NVIDIA__) ...`: the atomics "
        "as an atomicCAS loop on the aligned 32-bit word (the old value returned, as CUDA's), the error "
        "functions as a switch returning the strings the target's runtime returns on the host "
        "(mappings/device-gaps-<HIP>.yaml). mappings/shims.yaml lists them with their sources.",
    ),
    Rule(
        "HIP221",
        "thrust-transitive-header",
        Severity.INFO,
        "thrust header CUDA's thrust includes on the way and rocThrust does not, added",
        "Nothing to do; to keep the file as it was, include the header yourself.",
        "CUDA code calls `thrust::copy` or `thrust::sequence` with only <thrust/device_vector.h> or "
        "<thrust/sort.h> included: CUDA's thrust headers include <thrust/copy.h>, <thrust/sequence.h>... "
        "on the way. The same rocThrust headers may not (ROCm 6.4), and the translated call fails. Which "
        "headers bring which along, per HIP version, was probed with nvcc and each hipcc "
        "(scripts/probe_thrust_includes.py, mappings/thrust-includes-<version>.yaml; ROCm 7.2's "
        "rocThrust brings everything CUDA 13's does); the header goes after the include that CUDA's "
        "would have brought it through.",
    ),
    Rule(
        "HIP301",
        "cuda-version-macro",
        Severity.WARNING,
        "CUDA version macro in a condition",
        "Add a HIP branch: `#if CUDA_VERSION >= 11000 || defined(__HIP_PLATFORM_AMD__)` "
        "(or test HIP_VERSION).",
        "CUDA_VERSION, CUDART_VERSION, __CUDACC_VER_*__ and the library version macros "
        "(CUBLAS_VERSION, CUDNN_VERSION, ...) are undefined under hipcc (value 0 in #if), so "
        "version-gated code is silently dropped (>=) or entered (<) on ROCm; the message says which. "
        "Conditions that select on ROCm what they select with every current CUDA toolkit (11.8-13.0), "
        "e.g. `defined(CUDA_VERSION) && CUDA_VERSION < 9000`, are not reported.",
    ),
    Rule(
        "HIP224",
        "version-test-reaches-error",
        Severity.ERROR,
        "A CUDA version test makes hipcc reach an #error",
        "Give ROCm its own branch before the #error: `#if CUBLAS_VERSION >= 110402 || "
        "defined(__HIP_PLATFORM_AMD__)` (and check that the code it selects exists in HIP).",
        "The version macro (CUDA_VERSION, CUDART_VERSION, CUBLAS_VERSION, ...) is undefined under hipcc, "
        "so the condition takes the branch of old or unknown toolkits; where that branch is `#error` "
        "(`#else #error CUDART_VERSION Undefined!`), the build stops there. Reported beside HIP301.",
    ),
    Rule(
        "HIP302",
        "cuda-arch-macro",
        Severity.WARNING,
        "__CUDA_ARCH__ test",
        "Use `__HIP_DEVICE_COMPILE__` for 'device pass' tests and feature macros "
        "(__gfx90a__, __AMDGCN_WAVEFRONT_SIZE) for architecture checks.",
        "hipcc does not define __CUDA_ARCH__; `#ifdef __CUDA_ARCH__` device-only paths and "
        "compute-capability comparisons (>= 700) never match on AMD, and `#ifndef __CUDA_ARCH__` host "
        "paths are compiled for the AMD device. Conditions that select on AMD what they select on every "
        "current NVIDIA GPU (sm_80 to sm_90a), e.g. `defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`, "
        "are not reported; nor are conditions nested in a branch hipcc never compiles.",
    ),
    Rule(
        "HIP303",
        "nvcc-guard",
        Severity.WARNING,
        "__NVCC__ guard: hipcc does not define __NVCC__",
        "Test `defined(__NVCC__) || defined(__HIPCC__)` or __HIP_PLATFORM_AMD__ as intended.",
        "hip-clang defines __HIPCC__ and __HIP__ but not __NVCC__, so nvcc-only branches are skipped.",
    ),
    Rule(
        "HIP304",
        "runtime-version-compare",
        Severity.WARNING,
        "CUDA runtime/driver version compared with a number",
        "Compare hipRuntimeGetVersion results with HIP_VERSION-style numbers "
        "(major*10000000 + minor*100000 + patch), or branch on the platform.",
        "hipRuntimeGetVersion/hipDriverGetVersion return HIP's own numbering, so comparisons "
        "with CUDA numbers like 11000 give the wrong answer.",
    ),
    Rule(
        "HIP307",
        "cuda-header-guard",
        Severity.WARNING,
        "Guard or feature macro of a CUDA header that HIP does not define",
        "Include the HIP counterpart and test its macro, or test __HIP_PLATFORM_AMD__ for a ROCm "
        "branch; without a counterpart, port the guarded code by hand.",
        "Helper headers hide code behind the include guards of CUDA headers (`#ifdef "
        "__DRIVER_TYPES_H__`, `CUBLAS_API_H_`, `CUSPARSEAPI`...). hipify-py rewrites the guards whose "
        "HIP counterpart header defines a macro (mappings/guards.yaml, checked against the installed "
        "headers) and reports the others: a library without a HIP counterpart (nvJPEG, NPP), or a "
        "macro the target HIP version's header does not define. Under hipcc the condition never "
        "holds, so the code it guards is silently dropped on ROCm.",
    ),
    Rule(
        "HIP401",
        "build-construct-not-understood",
        Severity.WARNING,
        "CUDA build construct not understood: left as is",
        "Port this build setting by hand.",
        "The CMake/Makefile translator reports what it does not understand instead of guessing.",
    ),
    Rule(
        "HIP402",
        "nvcc-flag",
        Severity.WARNING,
        "nvcc-only flag dropped or mapped approximately",
        "Check the hipcc/clang equivalent of this flag.",
        "Some nvcc flags have no exact hip-clang equivalent; they are mapped or dropped and reported.",
    ),
    Rule(
        "HIP404",
        "gpu-targets",
        Severity.INFO,
        "CUDA architectures replaced by AMD GPU targets",
        "Check the AMD targets: convert again with --offload-arch gfxNNN[,gfxMMM] (or the offload-arch "
        "configuration key) to choose them.",
        "CMAKE_CUDA_ARCHITECTURES, the CUDA_ARCHITECTURES property, -arch=sm_XX, -gencode, "
        "--gpu-architecture and make variables holding sm_XX values become CMAKE_HIP_ARCHITECTURES, "
        "HIP_ARCHITECTURES and --offload-arch; a CUDA number is never carried over. The targets are, in "
        "this order: --offload-arch (or the configuration key), the GPUs of the machine "
        "(rocm_agent_enumerator or amdgpu-arch, gfx000 left out), else gfx90a. Each build file that sets "
        "architectures says once which were written and why.",
    ),
    Rule(
        "HIP405",
        "cxx-standard-raised",
        Severity.INFO,
        "C++ standard raised to what the target's ROCm libraries require",
        "Check that the code builds as C++17 (register, dynamic exception specifications and "
        "std::auto_ptr are gone).",
        'ROCm 7\'s rocPRIM, rocThrust and hipCUB stop with `#error "rocPRIM requires at least C++17"`. '
        "The lowest standard each library header of a release compiles with is probed "
        "(scripts/probe_cxx_standard.py -> mappings/cxx-standard-<version>.yaml); a lower -std=c++NN, "
        "CMAKE_CXX_STANDARD, CMAKE_CUDA_STANDARD, CXX_STANDARD/CUDA_STANDARD property or cxx_std_NN "
        "compile feature in a converted build file is raised to it.",
    ),
    Rule(
        "HIP406",
        "host-hip-platform",
        Severity.INFO,
        "Host build settings adapted to HIP",
        "Nothing to do; where your host compiles take their flags from elsewhere (a toolchain file, "
        "the environment), define __HIP_PLATFORM_AMD__ there too.",
        "Host C++ compiled by g++ or $(CXX) that includes HIP headers must define the platform "
        '(-D__HIP_PLATFORM_AMD__; CMake: link hip::host), or hip_runtime.h stops with "Must define '
        'exactly one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__". A requirement on '
        "CMAKE_CUDA_COMPILER is dropped: CMake finds ROCm's clang++ for the HIP language itself.",
    ),
    Rule(
        "HIP501",
        "compile-error",
        Severity.ERROR,
        "The HIP compiler rejects this line of the translated code",
        "Port this line by hand; when the message names a CUDA API, see `hipify-py explain` for the "
        "finding that predicted it.",
        "With --verify (or `hipify-py verify`), every translated translation unit is compiled with "
        "the installed hipcc (-fsyntax-only, host and device, for each --offload-arch). Each compiler "
        "error is mapped back through the edits to the CUDA file and line it came from; a static "
        'finding on the same line is named ("predicted by HIP101").',
    ),
    Rule(
        "HIP502",
        "compile-error-in-header",
        Severity.ERROR,
        "A compiler error inside a HIP or system header, caused by this line",
        "Look at the user line: a macro of the same name as a HIP identifier, a wrong argument "
        "type for a HIP template, or an include order problem.",
        "The compiler reported the error inside a header that is not part of the converted tree "
        "(HIP's own headers, a library, a file left out of the run). The finding sits on the line "
        "of the converted code that led there: the macro use or template instantiation named in the "
        "compiler's notes, else the #include line. The message gives the header location.",
    ),
    Rule(
        "HIP503",
        "compile-failed",
        Severity.ERROR,
        "The translation unit did not compile and the compiler named no line",
        "Run the compile command shown in the report by hand; check flags (-p, -I, -D, --std).",
        "The compiler stopped without a source location: an unknown flag, a missing input, a "
        "timeout or a crash. The finding sits on the first line of the translation unit.",
    ),
    Rule(
        "HIP403",
        "unparsed-launch",
        Severity.WARNING,
        "Kernel launch could not be structured and was left as is",
        "Check the launch by hand; HIP also accepts the <<<>>> syntax.",
        "The parser could not recover the structure of this kernel launch (e.g. it is split "
        "across macros). It was left in triple-chevron form, which hip-clang also accepts.",
    ),
)
