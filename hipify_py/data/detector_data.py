"""Facts the pitfall detectors consult (kept apart from the detector logic).

Sources: the HIP 5.2 headers (hip_runtime_api.h hipDeviceProp_t, amd_hip_cooperative_groups.h),
the CUDA 12 programming guide for the CUDA side.
"""

from __future__ import annotations

from typing import NamedTuple

from hipify_py.util.lazyre import lazy

# cudaDeviceProp fields whose HIP 5.2 counterpart has another name.
PROP_RENAMES = {
    b"sharedMemPerMultiprocessor": b"maxSharedMemoryPerMultiProcessor",
    b"regsPerMultiprocessor": b"regsPerBlock",
}

# Names exported by CUDA's cooperative_groups that HIP 5.2's implementation lacks.
ABSENT_CG_FEATURES = frozenset(
    b"""
    reduce inclusive_scan exclusive_scan memcpy_async wait wait_prior plus less greater bit_and
    bit_or bit_xor labeled_partition binary_partition invoke_one invoke_one_broadcast this_cluster
    cluster_group block_tile_memory sync_grids
    """.split()
)

# Warp intrinsics with an explicit mask: HIP added them in 6.2.
SYNC_WARP_INTRINSICS = (
    b"__shfl_sync",
    b"__shfl_up_sync",
    b"__shfl_down_sync",
    b"__shfl_xor_sync",
    b"__ballot_sync",
    b"__any_sync",
    b"__all_sync",
    b"__uni_sync",
    b"__activemask",
    b"__syncwarp",
    b"__match_any_sync",
    b"__match_all_sync",
    b"__reduce_add_sync",
    b"__reduce_min_sync",
    b"__reduce_max_sync",
    b"__reduce_and_sync",
    b"__reduce_or_sync",
    b"__reduce_xor_sync",
)

# Device intrinsics that exist only as PTX instructions.
PTX_ONLY_INTRINSICS = (
    b"__nanosleep",
    b"__prof_trigger",
    b"__pm0",
    b"__pm1",
    b"__pm2",
    b"__pm3",
    b"__isCluster\\w*",
    b"__cluster_\\w+",
    b"__stwb",
    b"__stcg",
    b"__stcs",
    b"__stwt",
)

# (identifier prefix regex, library, what to do). The library's first word, lower-cased, is how
# its header path starts (so a header diagnostic from the include rule is not repeated). NVML is not
# here: each NVML name gets its ROCm SMI counterpart (HIP142, rules/detectors/vendor_libs.py).
LIBRARIES_WITHOUT_HIP: tuple[tuple[bytes, str, str], ...] = (
    (
        rb"nvtx(?:Range|Mark|Name|Domain|Event)",
        "NVTX",
        "use roctx from roctracer: roctxRangePush/Pop, roctxMark",
    ),
    (rb"npp[isc]?[A-Z]", "NPP", "no HIP port; rewrite with rocPRIM/MIOpen or custom kernels"),
    (rb"nvjpeg[A-Z]", "nvJPEG", "rocJPEG exists only in ROCm >= 6.2"),
    (rb"cuFile[A-Z]", "cuFile", "GPUDirect Storage has no HIP counterpart; use host I/O"),
    (rb"cutensor[A-Z]", "cuTENSOR", "hipTensor covers a subset (ROCm >= 5.7)"),
    (rb"cudnn[A-Z]", "cuDNN", "MIOpen is a port, not a rename: different descriptors and algorithm search"),
)

# Header path fragments (CUDA header and its HIP/ROCm target) whose include already got a HIP110/HIP101
# from the include rule, so the first call is not reported again (also on already-converted code).
LIBRARY_HEADERS: dict[str, tuple[bytes, ...]] = {
    "NVTX": (b"nvtx", b"nvtoolsext", b"roctx"),
    "NPP": (b"npp",),
    "nvJPEG": (b"nvjpeg",),
    "cuFile": (b"cufile",),
    "cuTENSOR": (b"cutensor", b"hiptensor"),
    "cuDNN": (b"cudnn", b"miopen"),
}

# Byte sizes of basic element types, for __shared__ arrays and sizeof() in size expressions.
TYPE_SIZES = {
    b"char": 1,
    b"unsigned char": 1,
    b"signed char": 1,
    b"int8_t": 1,
    b"uint8_t": 1,
    b"bool": 1,
    b"short": 2,
    b"unsigned short": 2,
    b"int16_t": 2,
    b"uint16_t": 2,
    b"half": 2,
    b"__half": 2,
    b"__nv_bfloat16": 2,
    b"int": 4,
    b"unsigned": 4,
    b"unsigned int": 4,
    b"int32_t": 4,
    b"uint32_t": 4,
    b"float": 4,
    b"long": 8,
    b"unsigned long": 8,
    b"long long": 8,
    b"int64_t": 8,
    b"uint64_t": 8,
    b"size_t": 8,
    b"double": 8,
    b"float2": 8,
    b"int2": 8,
    b"float4": 16,
    b"int4": 16,
    b"double2": 16,
}

# Names users give their own error-check helpers (cudaCheck, CUDA_CHECK, CUFFT_CHECK, CUDA_KERNEL_ASSERT,
# CUDA_RT_CALL); not unknown CUDA APIs. CUDA itself has no such names outside the tables.
USER_HELPER_NAME = lazy(
    rb"^(?:cuda|CUDA_?)(?:Check|CHECK|SafeCall|SAFE_CALL|Assert|ASSERT|Try|TRY|Call|CALL|Err|ERR|"
    rb"Error(?:Check)?|ERROR(?:_CHECK)?|Ok|OK)\w*$"
    rb"|^(?:CUDA|CU[A-Z]+)_(?:\w+_)?(?:CHECK|ASSERT|CALL|TRY|SAFE_CALL)(?:_\w+)?$"
    rb"|^cu[a-z]+(?:Check|Assert|SafeCall)\w*$"
)

# Version macros of the CUDA libraries (cublas_api.h, cudnn_version.h, ...): undefined under hipcc like
# CUDA_VERSION, so `#if CUBLAS_VERSION >= 11600` changes silently on ROCm (HIP301, not HIP102).
LIBRARY_VERSION_MACROS = (
    rb"CUBLAS_VER(?:SION|_MAJOR|_MINOR|_PATCH|_BUILD)|CUDNN_(?:VERSION|MAJOR|MINOR|PATCHLEVEL)|"
    rb"CUFFT_VER(?:SION|_MAJOR|_MINOR|_PATCH)|CURAND_VER(?:SION|_MAJOR|_MINOR|_PATCH)|"
    rb"CUSPARSE_VER(?:SION|_MAJOR|_MINOR|_PATCH|_BUILD)|CUSOLVER_VER(?:SION|_MAJOR|_MINOR|_PATCH|_BUILD)|"
    rb"CUTENSOR_(?:VERSION|MAJOR|MINOR|PATCH)|NVRTC_VERSION"
)

# Project macros that are defined only for NVIDIA device passes, never under hipcc: CUTLASS/CuTe derive
# their *_ARCH_*_ENABLED / *_SUPPORTED macros from __CUDA_ARCH__ and __CUDACC_VER_MAJOR__ (cutlass/arch/
# config.h), so `#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)` blocks (inline PTX) are never compiled on ROCm.
NVIDIA_ONLY_PROJECT_MACROS = rb"(?:CUTE|CUTLASS)_ARCH_\w+_(?:ENABLED|SUPPORTED)"

# Compiler tests of CUDA's own headers (CCCL) that are false under hipcc: `_CCCL_CUDA_COMPILER(NVHPC)`.
NVIDIA_COMPILER_TESTS = rb"_CCCL_(?:CUDA_)?COMPILER\s*\(\s*(?:NVHPC|NVCC|NVRTC)\b[^()]*\)"

# Families (name prefixes) of real CUDA constants newer than the mapping tables: an unknown
# SCREAMING_CASE name is reported as HIP102 only when its family is one the tables know (CU_TENSOR_MAP_*)
# or one of these; `CUDA_NUM_THREADS`, `CUDA_PTX_FP8_CVT_ENABLED` are project macros.
EXTRA_CUDA_FAMILIES = frozenset(
    (b"CU_MEMCPY_", b"CUDA_API_", b"CU_LAUNCH_", b"CU_GREEN_", b"CU_DEV_SM_", b"CUDA_GRAPH_")
)

# CUDA functions whose calls get an argument more on HIP (call-adaptations.yaml: cudaMallocHost(p, n) ->
# hipHostMalloc(p, n, hipHostMallocDefault)), and the HIP function with CUDA's own signature that a use
# other than a call (a function pointer: NWChem's `morecore(cudaMallocHost, bytes)`) must name
# (hip_runtime_api.h of HIP 5.2, ROCm 6.4 and 7.2: `hipError_t hipMallocHost(void** ptr, size_t size)`,
# deprecated in favour of hipHostMalloc).
FUNCTION_VALUES = {b"cudaMallocHost": b"hipMallocHost"}

# CUDA runtime errors HIP has no enumerator for and so never returns, with their value in CUDA's
# driver_types.h (CUDA 11-13; values kept since they were added). No hipError_t enumerator of HIP 5.2,
# ROCm 6.4 or 7.2 has one of these values (tests/test_never_returned.py reads each release's
# hip_runtime_api.h), so `err == cudaErrorDevicesUnavailable` written `err == ((hipError_t)46)` never
# holds on AMD, as no HIP call reports it, and a `case` of it is a case no call reaches.
NEVER_RETURNED_ERRORS = {
    b"cudaErrorInvalidHostPointer": 16,
    b"cudaErrorInvalidTextureBinding": 19,
    b"cudaErrorInvalidFilterSetting": 26,
    b"cudaErrorInvalidNormSetting": 27,
    b"cudaErrorStubLibrary": 34,
    b"cudaErrorCallRequiresNewerDriver": 36,
    b"cudaErrorInvalidSurface": 37,
    b"cudaErrorDuplicateVariableName": 43,
    b"cudaErrorDuplicateTextureName": 44,
    b"cudaErrorDuplicateSurfaceName": 45,
    b"cudaErrorDevicesUnavailable": 46,
    b"cudaErrorIncompatibleDriverContext": 49,
    b"cudaErrorLaunchMaxDepthExceeded": 65,
    b"cudaErrorLaunchFileScopedTex": 66,
    b"cudaErrorLaunchFileScopedSurf": 67,
    b"cudaErrorSyncDepthExceeded": 68,
    b"cudaErrorLaunchPendingCountExceeded": 69,
    b"cudaErrorDeviceNotLicensed": 102,
    b"cudaErrorStartupFailure": 127,
    b"cudaErrorTooManyPeers": 711,
    b"cudaErrorHardwareStackError": 714,
    b"cudaErrorIllegalInstruction": 715,
    b"cudaErrorMisalignedAddress": 716,
    b"cudaErrorInvalidAddressSpace": 717,
    b"cudaErrorInvalidPc": 718,
    b"cudaErrorNotPermitted": 800,
    b"cudaErrorSystemNotReady": 802,
    b"cudaErrorSystemDriverMismatch": 803,
    b"cudaErrorCompatNotSupportedOnDevice": 804,
    b"cudaErrorTimeout": 909,
}

# CUDA's shared-memory carveout preferences (driver_types.h: enum cudaSharedCarveout { ..Default = -1,
# ..MaxShared = 100, ..MaxL1 = 0 }; cuda.h: CUshared_carveout, CU_SHAREDMEM_CARVEOUT_*, the same values,
# CUDA 9-13): percentages for cudaFuncAttributePreferredSharedMemoryCarveout, which HIP has
# (hipFuncAttributePreferredSharedMemoryCarveout = 9: "the percentage of total shared memory allocated as
# the shared memory carveout", hip_runtime_api.h of HIP 5.2, ROCm 6.4 and 7.2) without names for them.
CARVEOUT_VALUES = {
    b"cudaSharedmemCarveoutDefault": b"(-1)",
    b"cudaSharedmemCarveoutMaxShared": b"100",
    b"cudaSharedmemCarveoutMaxL1": b"0",
    b"CU_SHAREDMEM_CARVEOUT_DEFAULT": b"(-1)",
    b"CU_SHAREDMEM_CARVEOUT_MAX_SHARED": b"100",
    b"CU_SHAREDMEM_CARVEOUT_MAX_L1": b"0",
    b"cudaSharedCarveout": b"int",
    b"CUshared_carveout": b"int",
    b"CUshared_carveout_enum": b"int",
}

# CUDA library structs whose HIP counterpart is a typedef of another struct, per platform: hiprand.h's
# hiprandGenerator_st is `typedef struct rocrand_generator_base_type hiprandGenerator_st;` on AMD
# (hiprand_rocm.h) and `typedef struct curandGenerator_st hiprandGenerator_st;` on NVIDIA
# (hiprand_nvcc.h), ROCm 6.4 and 7.2 (HIP 5.2's hiprand the same). A forward declaration of the CUDA
# struct (`struct curandGenerator_st;`, so a header need not include curand.h) must declare that typedef.
FORWARD_TYPEDEF_STRUCTS = {
    b"curandGenerator_st": (b"hiprandGenerator_st", b"rocrand_generator_base_type"),
}

# The opaque structs behind CUDA's library handles (cublas_api.h: `typedef struct cublasContext
# *cublasHandle_t;`, cusparse.h, cusolverDn.h/cusolverSp.h, cublasLt.h, driver_types.h/cuda.h for the
# external memory and semaphore handles, CUDA 11-13), which code names to hold a handle
# (`std::unique_ptr<cublasContext, Deleter>`, `std::remove_pointer_t`), and the HIP handle each becomes.
# Where the target's HIP handle is `void*` (mappings/probed/void-handles-<v>.yaml), its pointee is void.
HANDLE_STRUCTS = {
    b"cublasContext": b"hipblasHandle_t",
    b"cublasLtContext": b"hipblasLtHandle_t",
    b"cusparseContext": b"hipsparseHandle_t",
    b"cusparseMatDescr": b"hipsparseMatDescr_t",
    b"cusparseDnMatDescr": b"hipsparseDnMatDescr_t",
    b"cusparseDnVecDescr": b"hipsparseDnVecDescr_t",
    b"cusparseSpVecDescr": b"hipsparseSpVecDescr_t",
    b"cusparseColorInfo": b"hipsparseColorInfo_t",
    b"cusparseHybMat": b"hipsparseHybMat_t",
    b"cusolverDnContext": b"hipsolverHandle_t",
    b"cusolverSpContext": b"hipsolverSpHandle_t",
    b"cusolverDnParams": b"hipsolverDnParams_t",
    b"syevjInfo": b"hipsolverSyevjInfo_t",
    b"gesvdjInfo": b"hipsolverGesvdjInfo_t",
    b"CUexternalMemory_st": b"hipExternalMemory_t",
    b"CUextMemory_st": b"hipExternalMemory_t",
    b"CUexternalSemaphore_st": b"hipExternalSemaphore_t",
    b"CUextSemaphore_st": b"hipExternalSemaphore_t",
}

# nvcc's feature-test macros for what hip-clang always does, with the nvcc flag that defines each (CUDA
# nvcc documentation, 11-13): hip-clang takes constexpr functions in device code (they are implicitly
# __host__ __device__) and __device__ lambdas in host code without a flag, and defines neither macro
# (predefined macros of the hipcc 5.2, 6.4 and 7.2 device and host passes). rules/nvcc_features.py
# makes their tests hold on AMD.
NVCC_FEATURE_MACROS = {
    b"__CUDACC_EXTENDED_LAMBDA__": "--expt-extended-lambda",
    b"__CUDACC_RELAXED_CONSTEXPR__": "--expt-relaxed-constexpr",
}

# A condition that mentions one of these already has a HIP/ROCm branch (the list of the protected
# regions in context.py, and HIP's NVIDIA platform: a shim's `!(defined(__HIP_PLATFORM_NVIDIA__) &&
# __CUDACC_VER_MAJOR__ ...)` tests CUDA's version only where hipcc runs nvcc).
HIP_PLATFORM_MACRO = lazy(
    rb"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_AMDGPU__|USE_ROCM|__HIPCC__|"
    rb"__HIP__|__HIP_DEVICE_COMPILE__|HIP_PLATFORM_AMD|USE_HIP|__HIP_ROCclr__|HIP_VERSION\w*|"
    rb"__HIP_PLATFORM_NVIDIA__|__HIP_PLATFORM_NVCC__)\b"
)

# Overloads HIP lacks for an argument type (HIP215). `through`: the newest HIP release checked to lack
# it (hipcc 5.2 of Debian 12: `no matching function`/`ambiguous`); newer targets get no finding until a
# release is checked. `arg`: the argument whose type decides; `pointer`: the argument points to the type.
HALF_TYPES = frozenset(
    (
        b"__half",
        b"half",
        b"__half2",
        b"half2",
        b"__nv_bfloat16",
        b"nv_bfloat16",
        b"__nv_bfloat162",
        b"nv_bfloat162",
        b"__hip_bfloat16",
        b"__hip_bfloat162",
    )
)


class OverloadGap(NamedTuple):
    functions: tuple[bytes, ...]
    arg: int
    pointer: bool
    types: frozenset[bytes]
    through: str
    what: str


_SHUFFLE_GAP = (
    "the target's warp shuffles have no overload for this 16-bit floating-point type (HIP 5.2 has none for "
    "any, 6.4 none for bf16, 7.2 none for bf162): shuffle the bits as an int (memcpy/union) or the value "
    "as a float"
)
_SHUFFLES = (b"__shfl", b"__shfl_up", b"__shfl_down", b"__shfl_xor")
_BF16 = frozenset((b"__nv_bfloat16", b"nv_bfloat16", b"__hip_bfloat16"))
_BF162 = frozenset((b"__nv_bfloat162", b"nv_bfloat162", b"__hip_bfloat162"))
# Which 16-bit types each release's shuffles reject (hipcc -fsyntax-only of `__shfl_xor(x, 1)` and the
# other three for each type): 5.2 every one; 6.4 the bf16 ones (half and half2 compile); 7.2 only
# __hip_bfloat162. The _sync forms are templates for any type where the target keeps them (7.x); on
# 6.2-6.x they become the mask-free forms (version-adaptations.yaml), so they lack what those lack.
_SHUFFLE_TYPES = ((HALF_TYPES, "5.2"), (_BF16 | _BF162, "6.4"), (_BF162, "7.2"))
_SYNC_SHUFFLES = tuple(n + b"_sync" for n in _SHUFFLES)
OVERLOAD_GAPS = (
    *(OverloadGap(_SHUFFLES, 0, False, t, through, _SHUFFLE_GAP) for t, through in _SHUFFLE_TYPES),
    *(OverloadGap(_SYNC_SHUFFLES, 1, False, t, through, _SHUFFLE_GAP) for t, through in _SHUFFLE_TYPES[:2]),
    OverloadGap(
        (b"atomicAdd",),
        0,
        True,
        HALF_TYPES,
        "7.2",  # atomicAdd(__half*)/atomicAdd(__half2*) do not compile with 5.2, 6.4 or 7.2 (checked)
        "HIP's atomicAdd takes int, unsigned, unsigned long long, float and double pointers, not 16-bit "
        "floating-point ones: use atomicCAS on the 32-bit word, or accumulate in float",
    ),
    OverloadGap(
        (b"atomicMax", b"atomicMin", b"atomicMax_system", b"atomicMin_system"),
        0,
        True,
        frozenset((b"long long", b"long long int", b"signed long long", b"signed long long int")),
        # CUDA's atomicMax/atomicMin(long long*, long long) (sm_35+): not in HIP 5.2, in 6.4/7.2 (checked)
        "5.2",
        "HIP 5.2's atomicMax/atomicMin take int, unsigned, unsigned long long and float pointers, not signed "
        "64-bit ones (ROCm 6 has them): loop on atomicCAS comparing as long long, or target ROCm 6+",
    ),
)

# Whole inline-PTX statements with an exact HIP builtin (PTX ISA: `trap` aborts the kernel as CUDA's
# __trap(); `membar.{cta,gl,sys}` are fence.sc.{cta,gpu,sys}, the fences of __threadfence_block(),
# __threadfence() and __threadfence_system(); `bar.sync 0`/`barrier.sync 0` is __syncthreads()'s barrier).
# Keys: the template with `;`, `\n`, `\t` and repeated blanks dropped.
PTX_EQUIVALENTS: dict[bytes, bytes] = {
    b"trap": b"__builtin_trap()",
    b"membar.cta": b"__threadfence_block()",
    b"membar.gl": b"__threadfence()",
    b"membar.sys": b"__threadfence_system()",
    b"bar.sync 0": b"__syncthreads()",
    b"barrier.sync 0": b"__syncthreads()",
    # programmatic dependent launch (sm_90): without it (HIP has none) a kernel starts after the work
    # before it in its stream has finished, so waiting for that work and releasing dependents do nothing
    b"griddepcontrol.wait": b"(void)0",
    b"griddepcontrol.launch_dependents": b"(void)0",
}

# PTX instructions of one result and register operands, written `asm("OP %0, %1, %2, %3;" : "=C"(d) :
# "C"(a), "C"(b), "C"(c))`, and the function that computes the same: (the result's constraint, the
# operands' constraints, the function). The funnel shifts are HIP's (`shf.l.clamp` is CUDA's own
# __funnelshift_lc: {b:a} shifted by min(c, 32), whose high word is the result); the bit-field
# extract and insert are helpers of mappings/hand-kept/shims.yaml with PTX's semantics: position and
# length are the low 8 bits for 32-bit operands and whole for 64-bit ones (as an H200 computes them),
# a field past the operand's width is clipped, a signed extract is filled with the field's top bit.
# HIP's __bitextract_u32 is AMD's v_bfe, which takes them modulo 32. The constraints fix the operand
# widths, so nothing else is rewritten.
PTX_OPERATIONS: dict[bytes, tuple[bytes, bytes, bytes]] = {
    b"bfe.u32": (b"r", b"rrr", b"hipify_py_bfe_u32"),
    b"bfe.s32": (b"r", b"rrr", b"hipify_py_bfe_s32"),
    b"bfe.u64": (b"l", b"lrr", b"hipify_py_bfe_u64"),
    b"bfe.s64": (b"l", b"lrr", b"hipify_py_bfe_s64"),
    b"bfi.b32": (b"r", b"rrrr", b"hipify_py_bfi_b32"),
    b"bfi.b64": (b"l", b"llrr", b"hipify_py_bfi_b64"),
    b"shf.l.clamp.b32": (b"r", b"rrr", b"__funnelshift_lc"),
    b"shf.r.clamp.b32": (b"r", b"rrr", b"__funnelshift_rc"),
    b"shf.l.wrap.b32": (b"r", b"rrr", b"__funnelshift_l"),
    b"shf.r.wrap.b32": (b"r", b"rrr", b"__funnelshift_r"),
    # population count, bit reversal, leading zeros (the count of a 64-bit operand is 32-bit) and the
    # high half of a product: CUDA's intrinsics of these names are these instructions, HIP has them all
    b"popc.b32": (b"r", b"r", b"__popc"),
    b"popc.b64": (b"r", b"l", b"__popcll"),
    b"brev.b32": (b"r", b"r", b"__brev"),
    b"brev.b64": (b"l", b"l", b"__brevll"),
    b"clz.b32": (b"r", b"r", b"__clz"),
    b"clz.b64": (b"r", b"l", b"__clzll"),
    b"mul.hi.u32": (b"r", b"rr", b"__umulhi"),
    b"mul.hi.s32": (b"r", b"rr", b"__mulhi"),
    b"mul.hi.u64": (b"l", b"ll", b"__umul64hi"),
    b"mul.hi.s64": (b"l", b"ll", b"__mul64hi"),
    # the most significant (non-sign) bit's position, or the shift that moves it to the top: helpers with
    # PTX's semantics, -1 when there is none (mappings/hand-kept/shims.yaml, source ptx_find_msb)
    b"bfind.u32": (b"r", b"r", b"hipify_py_bfind_u32"),
    b"bfind.s32": (b"r", b"r", b"hipify_py_bfind_s32"),
    b"bfind.u64": (b"r", b"l", b"hipify_py_bfind_u64"),
    b"bfind.s64": (b"r", b"l", b"hipify_py_bfind_s64"),
    b"bfind.shiftamt.u32": (b"r", b"r", b"hipify_py_bfind_shiftamt_u32"),
    b"bfind.shiftamt.s32": (b"r", b"r", b"hipify_py_bfind_shiftamt_s32"),
    b"bfind.shiftamt.u64": (b"r", b"l", b"hipify_py_bfind_shiftamt_u64"),
    b"bfind.shiftamt.s64": (b"r", b"l", b"hipify_py_bfind_shiftamt_s64"),
    # byte permute (default mode: a selector's top bit replicates the chosen byte's sign, which HIP's
    # __byte_perm ignores) and the three-input logic operation of a truth table: helpers with PTX's
    # semantics (mappings/hand-kept/shims.yaml, source ptx_byte_logic)
    b"prmt.b32": (b"r", b"rrr", b"hipify_py_prmt_b32"),
    b"lop3.b32": (b"r", b"rrrr", b"hipify_py_lop3_b32"),
}

# PTX special registers read with `mov` (`asm("mov.u32 %0, %%laneid;" : "=r"(lane))`) and what the read
# becomes: the cycle counters are clock64() on both platforms; the lane within the warp (a wavefront on
# AMD), the multiprocessor (compute unit) the thread runs on and the lane masks are helpers of
# mappings/hand-kept/shims.yaml (HIP's __lane_id(), __smid(), __lanemask_* on AMD, the PTX register on
# NVIDIA, where HIP has none of them). Not here: %globaltimer (nanoseconds; HIP's wall_clock64() counts
# at a device-dependent rate), %warpid, %nsmid, %gridid (no counterpart).
PTX_SPECIAL_REGISTERS: dict[bytes, bytes] = {
    b"clock": b"clock64()",
    b"clock64": b"clock64()",
    b"laneid": b"hipify_py_laneid()",
    b"smid": b"hipify_py_smid()",
    b"lanemask_lt": b"hipify_py_lanemask_lt()",
    b"lanemask_le": b"hipify_py_lanemask_le()",
    b"lanemask_eq": b"hipify_py_lanemask_eq()",
    b"lanemask_ge": b"hipify_py_lanemask_ge()",
    b"lanemask_gt": b"hipify_py_lanemask_gt()",
}

# CUDA's surface object calls (surface_indirect_functions.h, CUDA 11-13: `surf2Dwrite(T data,
# cudaSurfaceObject_t, int x, int y, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap)`, the reads also
# `T surf2Dread<T>(obj, x, y, mode)`) -> the parameters of HIP's (amd_surface_functions.h of ROCm 6.4 and
# 7.2: the pointer forms only, no boundary mode but surf1Dread's; HIP 5.2's took one more, defaulting to
# hipBoundaryModeZero, and ignored it). The cubemap-layered calls are not here: CUDA's take one
# `layerFace` index, HIP's a face and a layer.
SURFACE_PARAMETERS: dict[bytes, int] = {
    b"surf1Dread": 3,
    b"surf1Dwrite": 3,
    b"surf2Dread": 4,
    b"surf2Dwrite": 4,
    b"surf3Dread": 5,
    b"surf3Dwrite": 5,
    b"surf1DLayeredread": 4,
    b"surf1DLayeredwrite": 4,
    b"surf2DLayeredread": 5,
    b"surf2DLayeredwrite": 5,
    b"surfCubemapread": 5,
    b"surfCubemapwrite": 5,
}
SURFACE_CUBEMAP_LAYERED = (b"surfCubemapLayeredread", b"surfCubemapLayeredwrite")

# The names CUB declares in its namespace that code reaches through a wrapped namespace
# (`CUB_NS_QUALIFIER ::ls::cub`, CUB_WRAPPED_NAMESPACE: `ls::cub::DeviceReduce`): the device-wide,
# block and warp algorithms, the iterators, operators and utilities of cub/cub.cuh (CUB 1.x-2.x). A name
# outside the list after `X::cub::` is a project's own nested namespace (`mylib::cub::x`).
CUB_WRAPPED_NAMES = (
    rb"(?:Device|Block|Warp)[A-Z]\w*|\w*Iterator|CachingDeviceAllocator|KeyValuePair|DoubleBuffer|Sum|Max|"
    rb"Min|ArgMax|ArgMin|Equality|Inequality|CastOp|NumericTraits|Traits|FpLimits|NullType|Int2Type|"
    rb"Uninitialized|RowMajorTid|LaneId|WarpId|ThreadLoad|ThreadStore|Debug|PtxVersion|SmVersion|"
    rb"ShuffleIndex|ShuffleUp|ShuffleDown|SyncStream|MaxSmOccupancy|(?:LOAD|STORE|BLOCK|WARP)_[A-Z_]+"
)

# Thrust's algorithms by public header (thrust/<header>), those CUDA 11's thrust/execution_policy.h
# brought along: Thrust 1.9-1.15's thrust/system/cuda/execution_policy.h includes every
# thrust/system/cuda/detail/<algorithm>.h, each of which includes its public header; Thrust 1.16 (and
# CCCL 2-3, CUDA 12-13) include none (NVIDIA/thrust tags 1.15.0 and 1.16.0). Code written for CUDA 11
# calls `thrust::transform_reduce(thrust::cuda::par, ...)` with only that header (lightseq).
THRUST_ALGORITHM_HEADERS: dict[bytes, tuple[bytes, ...]] = {
    b"adjacent_difference.h": (b"adjacent_difference",),
    b"binary_search.h": (b"binary_search", b"lower_bound", b"upper_bound"),
    b"copy.h": (b"copy", b"copy_if", b"copy_n"),
    b"count.h": (b"count", b"count_if"),
    b"equal.h": (b"equal",),
    b"extrema.h": (b"max_element", b"min_element", b"minmax_element"),
    b"fill.h": (b"fill", b"fill_n"),
    b"find.h": (b"find", b"find_if", b"find_if_not"),
    b"for_each.h": (b"for_each", b"for_each_n"),
    b"gather.h": (b"gather", b"gather_if"),
    b"generate.h": (b"generate", b"generate_n"),
    b"inner_product.h": (b"inner_product",),
    b"merge.h": (b"merge", b"merge_by_key"),
    b"mismatch.h": (b"mismatch",),
    b"partition.h": (
        b"is_partitioned",
        b"partition",
        b"partition_copy",
        b"partition_point",
        b"stable_partition",
        b"stable_partition_copy",
    ),
    b"reduce.h": (b"reduce", b"reduce_by_key"),
    b"remove.h": (b"remove", b"remove_copy", b"remove_copy_if", b"remove_if"),
    b"replace.h": (b"replace", b"replace_copy", b"replace_copy_if", b"replace_if"),
    b"reverse.h": (b"reverse", b"reverse_copy"),
    b"scan.h": (b"exclusive_scan", b"exclusive_scan_by_key", b"inclusive_scan", b"inclusive_scan_by_key"),
    b"scatter.h": (b"scatter", b"scatter_if"),
    b"set_operations.h": (
        b"set_difference",
        b"set_difference_by_key",
        b"set_intersection",
        b"set_intersection_by_key",
        b"set_symmetric_difference",
        b"set_symmetric_difference_by_key",
        b"set_union",
        b"set_union_by_key",
    ),
    b"sort.h": (
        b"is_sorted",
        b"is_sorted_until",
        b"sort",
        b"sort_by_key",
        b"stable_sort",
        b"stable_sort_by_key",
    ),
    b"swap.h": (b"swap_ranges",),
    b"tabulate.h": (b"tabulate",),
    b"transform.h": (b"transform", b"transform_if"),
    b"transform_reduce.h": (b"transform_reduce",),
    b"transform_scan.h": (b"transform_exclusive_scan", b"transform_inclusive_scan"),
    b"uninitialized_copy.h": (b"uninitialized_copy", b"uninitialized_copy_n"),
    b"uninitialized_fill.h": (b"uninitialized_fill", b"uninitialized_fill_n"),
    b"unique.h": (b"unique", b"unique_by_key", b"unique_by_key_copy", b"unique_copy"),
}
