"""The rule registry: stable ids, names, severities, messages, hints and docs of every finding.

HIP1xx (API support) are here; HIP2xx-HIP5xx in rule_texts_other.py. `hipify-py explain`, the
reports and the docs read these texts; a rule module reports an id (engine/diagnostics.py: Diagnostic).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.rule_texts_other import OTHER_RULES


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.id: r for r in rules}


API_RULES: tuple[Rule, ...] = (
    Rule(
        "HIP101",
        "unsupported-api",
        Severity.ERROR,
        "CUDA API with no HIP counterpart",
        "Rewrite this code by hand (see the HIP docs for an alternative) or guard it with "
        "`#ifndef __HIP_PLATFORM_AMD__`.",
        "The mapping tables list this CUDA name but HIP has no counterpart for it, so the name is "
        "left as is and the translated file will not compile on ROCm until it is replaced. Not "
        "reported: names under another scope (`sycl::mul24`, `Ops::mul24`, also in macro bodies), "
        "names the file defines itself (`inline void memoryBarrier() {...}`, a #define), member "
        "accesses, and code hipcc never compiles.",
    ),
    Rule(
        "HIP102",
        "unknown-cuda-api",
        Severity.WARNING,
        "CUDA-looking identifier that is in no mapping table",
        "Check whether this is a CUDA API (then port it by hand) or a name of your own "
        "(then rename it or silence with `// hipify-py: ignore[HIP102]`).",
        "Identifiers that look like CUDA API names (cuda*, cu*, CU*) but are unknown to every "
        "mapping table are likely newer CUDA APIs the tables do not track yet. Names the file declares "
        "(anywhere, also in CUDA-only branches), `Name::` qualifiers, error-check helpers "
        "(CUDA_CHECK, CUFFT_CHECK, CUDA_KERNEL_ASSERT) and SCREAMING_CASE names outside every known "
        "constant family (CUDA_NUM_THREADS) are not reported; nor is code hipcc never compiles.",
    ),
    Rule(
        "HIP103",
        "hip-version-too-old",
        Severity.ERROR,
        "HIP counterpart is newer than the target HIP version",
        "Raise --hip-version, or keep a CUDA-only path for older ROCm releases.",
        "The HIP counterpart of this CUDA name was added in a HIP release newer than the target "
        "given with --hip-version; the translated code will not compile against the older HIP. "
        "Names the headers of a real install lack (mappings/hip-headers-*.yaml) count as newer "
        "than that install even where the reference tables date them earlier. An error: the target "
        "(by default the installed HIP) cannot compile the line.",
    ),
    Rule(
        "HIP104",
        "hip-deprecated-or-removed",
        Severity.WARNING,
        "HIP counterpart is deprecated or removed in the target HIP version",
        "Move to the replacement API named in the HIP documentation.",
        "The HIP counterpart exists but is deprecated or removed in the target HIP version.",
    ),
    Rule(
        "HIP105",
        "cuda-deprecated",
        Severity.INFO,
        "CUDA API is deprecated or removed in CUDA itself",
        "Consider moving to the current CUDA API first; its HIP counterpart is usually better supported.",
        "The CUDA name is deprecated or removed in CUDA; HIP may still provide a counterpart.",
    ),
    Rule(
        "HIP106",
        "roc-fallback",
        Severity.INFO,
        "No ROC library counterpart: translated to the hip* wrapper instead",
        "Mixing roc* and hip* calls on one handle does not work; use hip* for this library or "
        "port this call by hand.",
        "With --roc, names are translated to the roc* library (rocBLAS, rocRAND, ...) where the "
        "tables have a counterpart; this one has none, so the hip* wrapper name is used.",
    ),
    Rule(
        "HIP107",
        "experimental-mapping",
        Severity.INFO,
        "HIP counterpart is experimental",
        "Test this call carefully on ROCm; its behaviour may differ from CUDA.",
        "The mapping tables mark this HIP counterpart as experimental.",
    ),
    Rule(
        "HIP110",
        "partial-library",
        Severity.WARNING,
        "Library with no or only a partial HIP/ROCm counterpart",
        "Port the calls of this library by hand; see the note for the closest ROCm library.",
        "Some CUDA libraries (NVTX, NVML, cuTENSOR, cuDNN, NPP, nvJPEG, cuFile) have no HIP "
        "counterpart or one that covers only part of the API; renaming is not enough.",
    ),
    Rule(
        "HIP111",
        "texture-reference",
        Severity.ERROR,
        "Texture/surface reference (removed API)",
        "Use texture objects: hipCreateTextureObject with a hipResourceDesc/hipTextureDesc, and pass "
        "the hipTextureObject_t to the kernel.",
        "Texture and surface references (`texture<T, dim, mode>` globals, cudaBindTexture*) were "
        "removed in CUDA 12 and are deprecated/unsupported in HIP. Only texture objects are portable.",
    ),
    Rule(
        "HIP112",
        "dynamic-parallelism",
        Severity.ERROR,
        "Kernel launch or device synchronisation from device code (dynamic parallelism)",
        "Move the child launch to the host (split the kernel) or flatten the recursion into a loop.",
        "CUDA dynamic parallelism (launching kernels from __global__/__device__ code, "
        "cudaDeviceSynchronize on the device) has no HIP counterpart on AMD GPUs.",
    ),
    Rule(
        "HIP113",
        "cooperative-groups-missing",
        Severity.ERROR,
        "Cooperative-groups feature absent in HIP",
        "Implement it with shuffles/shared memory (e.g. a tile reduction with __shfl_down) or "
        "rocPRIM/hipCUB block primitives.",
        "HIP's cooperative groups (HIP 5.2) provide thread_block, grid_group, multi_grid_group, "
        "thread_block_tile, coalesced_group and tiled_partition, but not cg::reduce/scan, "
        "memcpy_async/wait, labeled/binary partitions or clusters.",
    ),
    Rule(
        "HIP114",
        "cooperative-launch",
        Severity.WARNING,
        "Grid-wide synchronisation needs a cooperative launch",
        "Launch with hipLaunchCooperativeKernel, size the grid with "
        "hipOccupancyMaxActiveBlocksPerMultiprocessor, and check hipDeviceAttributeCooperativeLaunch.",
        "grid_group::sync() only works when every block of the grid is resident at once, which "
        "requires hipLaunchCooperativeKernel (not hipLaunchKernelGGL) and a grid that fits the device.",
    ),
    Rule(
        "HIP115",
        "device-prop-field",
        Severity.ERROR,
        "cudaDeviceProp field absent in hipDeviceProp_t",
        "Use the HIP field named in the message, or hipDeviceGetAttribute.",
        "hipDeviceProp_t of HIP 5.2 lacks several cudaDeviceProp fields (uuid, luid, "
        "asyncEngineCount, deviceOverlap, sharedMemPerBlockOptin, ...); some exist under another name. "
        "ROCm 6's struct has CUDA 12's fields. Which fields the target has is probed per release "
        "(scripts/probe_device_props.py, mappings/hip-device-props-<version>.yaml).",
    ),
    Rule(
        "HIP116",
        "cg-tile-wavefront",
        Severity.WARNING,
        "Cooperative-groups tile of 64 threads depends on the wavefront size",
        "Use tiles of at most 32 threads for code that must also run on RDNA GPUs, or check "
        "warpSize at run time.",
        "HIP tiles (tiled_partition, thread_block_tile) may not be larger than the wavefront: 64 "
        "threads on CDNA (MI100-MI300) but 32 on RDNA (Radeon) GPUs, where a 64-thread tile fails "
        "to compile (static tiles) or misbehaves (dynamic tiles). Tiles above 64 fail everywhere "
        "(reported as HIP113).",
    ),
    Rule(
        "HIP117",
        "missing-in-target",
        Severity.ERROR,
        "Construct the target HIP version lacks, with no equivalent written",
        "Rewrite it by hand for AMD (e.g. a shuffle loop for __reduce_add_sync), raise --hip-version "
        "if your ROCm is newer, or guard it with `#ifndef __HIP_PLATFORM_AMD__`.",
        "The target HIP version (--hip-version, the config, else the installed HIP) does not provide "
        "this CUDA construct and hipify-py knows no equivalent for it there "
        "(mappings/version-adaptations.yaml says which HIP versions have it and why). The file will "
        "not compile against that HIP.",
    ),
    Rule(
        "HIP121",
        "call-argument-dropped",
        Severity.WARNING,
        "HIP's counterpart of this call has no parameter for one of its arguments",
        "Check that the dropped argument's value is HIP's default behaviour; otherwise port the "
        "call by hand.",
        "The call was adapted to HIP's argument list (mappings/call-adaptations.yaml, from AMD "
        "HIPIFY), which drops an argument HIP has no parameter for; AMD's hipify-clang warns of the "
        "same loss.",
    ),
    Rule(
        "HIP122",
        "call-adaptation-impossible",
        Severity.ERROR,
        "Call needs an argument change that could not be made here",
        "Adapt the arguments by hand as the message says.",
        "The HIP (or --roc library) counterpart of this call takes other arguments than CUDA's, and "
        "the change could not be made: the call has fewer arguments than the change needs, or the "
        "value depends on a target HIP version that is unknown.",
    ),
    Rule(
        "HIP123",
        "redefines-hip-device-function",
        Severity.ERROR,
        "Definition of a device function HIP already defines",
        "Remove this definition for ROCm (e.g. `#if !defined(__HIP_PLATFORM_AMD__)` around it); "
        "HIP's own function does the same.",
        "HIP's headers define this device function with the same parameter types (atomicAdd for "
        "double, atomicMax/atomicMin for float, ...; mappings/hip-device-functions-*.yaml, read from "
        "the installed headers), so this definition is a redefinition error with hipcc. Reported "
        "where the tool cannot place a guard itself (the definition shares its lines with other code).",
    ),
    Rule(
        "HIP125",
        "merged-overloads",
        Severity.ERROR,
        "Two definitions get one signature after renaming (HIP merges their CUDA types)",
        "Keep one of the two definitions (HIP has a single type for both, e.g. hipError_t for "
        "cudaError_t and CUresult) or guard the other with `#if 0`.",
        "CUDA has distinct types where HIP has one (cudaError_t/CUresult -> hipError_t, "
        "cudaStream_t/CUstream -> hipStream_t, cudaEvent_t/CUevent, cudaArray_t/CUarray, ...; the "
        "merge sets are the CUDA names the mapping tables send to one HIP name). Overloads on such a "
        "pair become redefinitions. Where the later definition can be wrapped safely, the tool does "
        "it (HIP212/HIP213); this finding is what it could not fix.",
    ),
    Rule(
        "HIP126",
        "merged-case-labels",
        Severity.ERROR,
        "Two case labels get one value after renaming (HIP merges their CUDA enumerators)",
        "Remove the later label: HIP has a single enumerator for both, so it can never be reached.",
        "Several CUDA enumerators map to one HIP enumerator (cudaErrorX and CUDA_ERROR_X -> "
        "hipErrorX; CU_DEVICE_ATTRIBUTE_..._WIDTH and _HEIGHT -> one hipDeviceAttribute...), so a "
        "switch naming both gets a duplicate case label. The tool comments the later label out "
        "(HIP212/HIP213); this finding is what it could not fix.",
    ),
    Rule(
        "HIP127",
        "ambiguous-vector-operator",
        Severity.ERROR,
        "User operator on a HIP vector type is ambiguous with HIP's own",
        "Delete the operator or guard it with `#if !defined(__HIP_PLATFORM_AMD__)` if it does what "
        "HIP's does (element-wise); otherwise make it a named function and call that.",
        "HIP's vector types (float4, int2, uchar4, ...) are classes with member operators "
        "+=, -=, *=, /= (same vector type) and ++/--. A user's `__host__ __device__` free operator "
        "with the same operands is an equally good match: every use is ambiguous and does not "
        "compile. Element-wise definitions are guarded automatically (HIP213); this finding is "
        "what does something else and needs a human.",
    ),
    Rule(
        "HIP128",
        "library-not-installed",
        Severity.ERROR,
        "ROCm library header not installed",
        "Install the ROCm package that provides it (hipCUB, rocThrust, hipBLAS, hipFFT, hipSOLVER, "
        "...; Debian 12 packages none of these), or build where ROCm is complete.",
        "The translation is right, but the installed HIP (found from hipcc on PATH, $ROCM_PATH, "
        "/opt/rocm, /usr) has no such header, so the build fails at this include. Checked once per "
        "run for every library header the tables can write (and rocThrust's thrust/); not reported "
        "when no HIP is installed or in code hipcc never compiles.",
    ),
    Rule(
        "HIP130",
        "braced-assignment",
        Severity.ERROR,
        "Braced-list assignment HIP's type does not accept",
        "Write every member (`v = float4{1, 0, 0, 0}` for CUDA's `v = {1}`) or assign the members.",
        "CUDA's vector and half types are aggregates (or take the list through one constructor), so "
        "`v = {1}` sets v.x and zero-fills the rest. HIP's types are classes with several "
        "constructors and operator= overloads: the assignment does not compile, and `float4{1}` "
        "would broadcast 1 to every member. Where `T{...}` means what CUDA meant "
        "(scripts/probe_brace_assign.py runs both on the host) the tool writes it; this finding is "
        "the forms where it does not.",
    ),
    Rule(
        "HIP131",
        "runtime-header-before-macro",
        Severity.INFO,
        "HIP runtime header included before a macro that would rewrite it",
        "Nothing to do; to keep the file as it was, include hip/hip_runtime.h before the #define "
        "yourself or rename the macro.",
        "nvcc includes cuda_runtime.h before the first line of every .cu file, so a user's "
        "`#define T int` or `#define min(a, b) ...` never reaches CUDA's headers. hipcc includes no "
        "runtime header by itself: if hip/hip_runtime.h comes later in the translation unit, HIP's "
        "`template <typename T>` or `min(...)` is rewritten by the macro and the build fails inside "
        "HIP's headers. The names come from the preprocessed runtime header "
        "(scripts/probe_hip_identifiers.py); the include is guarded by __HIPCC__/__HIP_PLATFORM_AMD__ "
        "so host-only compiles of the file are unchanged.",
    ),
    Rule(
        "HIP132",
        "runtime-header-before-c-linkage",
        Severity.INFO,
        'HIP runtime header included before an extern "C" block that includes the project\'s headers',
        'Nothing to do; to keep the file as it was, move the #include out of the extern "C" block.',
        'C code shares headers with CUDA code by wrapping them in `extern "C" { #include "x.h" }`. '
        "nvcc includes cuda_runtime.h before the first line, so a CUDA header x.h never opens it "
        "inside the block. Converted, x.h includes hip/hip_runtime.h itself; inside the block its "
        'C++ templates get C linkage and hipcc fails ("templates must have C++ linkage"). The '
        "runtime header is included above the block (guarded by __HIPCC__/__HIP_PLATFORM_AMD__, so "
        "host-only compiles are unchanged); its include guard makes the nested include a no-op.",
    ),
    Rule(
        "HIP135",
        "implicit-c-header",
        Severity.INFO,
        "C header nvcc includes implicitly, added",
        "Nothing to do; to keep the file as it was, include the header yourself.",
        "nvcc includes cuda_runtime.h in every .cu file, and it includes <string.h>, <stdlib.h>, "
        "<time.h>...: CUDA code calls `strlen` or `memcpy` without an include. ROCm 7's "
        "hip_runtime.h no longer declares string.h's functions for host code, so such a call fails to "
        "compile after translation. Which functions, per HIP version, was probed with nvcc and each "
        "hipcc (scripts/probe_implicit_includes.py, mappings/implicit-includes-<version>.yaml). C99's "
        "`isfinite`, `isnan`, `isinf`, `signbit`... are declared for host code by no HIP release (nvcc's "
        "math_functions.h has global overloads; <cmath> gives only `std::isfinite`): they get <math.h>. "
        "The header goes at the top of the include block of the converted file that calls one from "
        "host code.",
    ),
    Rule(
        "HIP136",
        "library-type-macro",
        Severity.INFO,
        "Macro a ROCm library header needs for CUDA's types, defined",
        "Nothing to do; if the library header comes into this translation unit earlier through another "
        "header, pass the macro on the command line (-DHIPBLAS_USE_HIP_HALF) instead.",
        "Some ROCm library headers declare their API on their own types unless a macro asks for the HIP "
        "ones: hipBLAS takes `hipblasHalf` (uint16_t) unless HIPBLAS_USE_HIP_HALF is defined, while "
        "cuBLAS's H functions take __half, which the translation keeps. A file that calls such a "
        "function gets the macro before its first include (mappings/library-macros.yaml: macro, the "
        "functions that need it, the releases whose headers were read).",
    ),
    Rule(
        "HIP137",
        "nvcc-guard-rewritten",
        Severity.INFO,
        "__NVCC__ test around GPU code rewritten to __HIPCC__",
        "Nothing to do; if the branch was meant for nvcc alone, restore __NVCC__ and port its code by hand.",
        "hipcc defines __HIPCC__ but not __NVCC__. A whole `#ifdef __NVCC__` (`#ifndef`, `defined()`) "
        "condition whose nvcc branch holds GPU code (execution-space qualifiers, launches, built-in "
        "indices, CUDA API calls) and nothing NVIDIA-only (inline assembly, `#pragma nv_*`, wmma, "
        "__CUDA_ARCH__) is the GPU build's path, so it tests __HIPCC__, as __CUDACC__ already does. "
        "Other __NVCC__ tests are kept and reported (HIP303).",
    ),
    Rule(
        "HIP138",
        "template-keyword-inserted",
        Severity.INFO,
        "Member template of a dependent scope called without `template`: the keyword was inserted",
        "Nothing to do; the keyword is standard C++ and nvcc accepts it too.",
        "In a template, `X<T>::f<N>(args)` names a member template through a scope that depends on a "
        "template parameter; C++ requires `X<T>::template f<N>(args)`. nvcc's front end accepts the "
        "call without the keyword and reads a template; clang, which every hipcc uses, reads the `<` as "
        'less-than and fails ("reference to overloaded function could not be resolved", "use '
        "'template' keyword to treat 'f' as a dependent template name\"). Only calls through `::` "
        "are rewritten; `obj.f<N>()` on an object of dependent type needs `obj.template f<N>()` by hand.",
    ),
    Rule(
        "HIP139",
        "cache-hint-not-called",
        Severity.ERROR,
        "Cache-hint load or store named other than in a call, for a target that lacks overloads of it",
        "Call it (`__ldcs(p)`: the translation then adapts each call) or write the plain load `*p` / "
        "store `*p = v`, which is what HIP's own overloads do.",
        "CUDA declares the cache-hint loads (__ldg, __ldcg, __ldca, __ldcs, __ldlu, __ldcv) and stores "
        "(__stwb, __stcg, __stcs, __stwt) for 34 types; HIP declares __ldg for most and the others for "
        "__half/__half2 at most (scripts/probe_cache_hints.py, "
        "mappings/cache-hint-overloads-<version>.yaml). "
        "A call whose type the target lacks, or whose type the file does not state, is sent to a helper "
        "template hipify-py inserts (HIP134: on AMD a plain load or store, on HIP's NVIDIA platform "
        "CUDA's intrinsic). A name that is not called (its address taken, passed as a function) cannot "
        "be sent there: the overload it picks may not exist on ROCm.",
    ),
    Rule(
        "HIP134",
        "equivalent-written",
        Severity.INFO,
        "Name the target HIP lacks: an equivalent definition was written into the file",
        "Nothing to do; the shim switches itself off when the code is built against a HIP release "
        "that has the name, and on HIP's NVIDIA platform where CUDA defines it. Delete it once you no "
        "longer build for the older release.",
        "The target HIP version lacks this name (hipsparseGetErrorString before ROCm 6.0, CUDA's SIMD "
        "video intrinsics such as __vmaxs4 in every release) but a small exact equivalent exists: "
        "hipify-py inserts it once per file, before the declaration that first uses it, wrapped in "
        "`#if !defined(HIPIFY_PY_SHIM_<name>) && !defined(__HIP_PLATFORM_NVIDIA__) && (<the library "
        "still lacks it>)` (the NVIDIA test for names CUDA defines, with the CUDA release where CUDA "
        "gained the name later than 11.0: CUDA's own definition is used there). mappings/shims.yaml "
        "lists each shim, the HIP versions that need it and the source of the fact. Files that define "
        "the name themselves, in any branch hipcc compiles, or include a project header that does (the "
        "run reads the file's include closure) get none, and their uses are not reported. A cache-hint "
        "load or store on a type the target lacks (`__ldcs` on a float4) calls a helper template "
        "hipify-py writes the same way (`hipify_py_ldcs`; mappings/cache-hints.yaml).",
    ),
    Rule(
        "HIP140",
        "library-not-packaged",
        Severity.ERROR,
        "The target ROCm release has no installable package of this library (RCCL, roctx)",
        "Install the library from AMD's ROCm repositories for this release (RCCL: librccl-dev/rccl, "
        "roctx: roctracer), or build for a release that packages it.",
        "NCCL code includes <rccl/rccl.h> after translation (RCCL keeps the nccl* names), NVTX code "
        "<roctracer/roctx.h>. Where the target's Debian has no installable package of that library "
        "(mappings/vendor-libs-<version>.yaml: HIP 5.2 has neither RCCL nor roctx, ROCm 6.4's RCCL "
        "5.4 package needs HIP 5), the include fails and which names that library lacks cannot be "
        "checked; so does an include of a header the package installs without what it includes "
        "(ROCm 7.2's rccl/nccl_net.h). Reported at the include, only for a target whose table was "
        "probed for that very release and not where HIP128 already says the installed HIP lacks the header.",
    ),
    Rule(
        "HIP141",
        "library-name-missing",
        Severity.ERROR,
        "The target's RCCL or roctx lacks this NCCL/NVTX name",
        "RCCL: guard the use with `#if NCCL_VERSION_CODE >= NCCL_VERSION(x, y, 0)` (RCCL defines "
        "the NCCL version it follows) and give the AMD build another way; roctx: use the ranges and "
        "marks roctx has (roctxRangePushA/roctxRangePop/roctxMarkA), or drop the call.",
        "RCCL implements the NCCL API of some NCCL release under the same names; a name NCCL added "
        "later (mappings/nccl-api.yaml says when) is undeclared there, and the build fails. Which "
        "names each release's RCCL declares is probed from its header "
        "(scripts/probe_vendor_libs.py). roctx has ranges and marks only: NVTX names beyond those "
        "(domains, resource naming, payloads, NVTX_* macros, nvtxNameCuda*) have no counterpart. "
        "Names with their own row in the mapping tables are reported there (HIP101) instead.",
    ),
    Rule(
        "HIP142",
        "nvml-port",
        Severity.ERROR,
        "NVML call whose ROCm SMI counterpart differs in arguments, units or meaning",
        "Port the call to the ROCm SMI function the message names, converting as it says "
        "(microwatts, millidegrees, Hz, the device index instead of a handle).",
        "nvml.h becomes <rocm_smi/rocm_smi.h> (link -lrocm_smi64). Where a ROCm SMI function is the "
        "exact counterpart (nvmlShutdown -> rsmi_shut_down, nvmlDeviceGetCount -> "
        "rsmi_num_monitor_devices) the name is renamed; every other NVML name is reported here with "
        "its counterpart and the conversion (mappings/nvml-rsmi.yaml): ROCm SMI takes a device "
        "index, not an nvmlDevice_t, and reports power in microwatts, temperatures in millidegrees, "
        "clocks in Hz. NVML names without a row are reported too, without a counterpart.",
    ),
    Rule(
        "HIP143",
        "device-pass-test-widened",
        Severity.INFO,
        "__CUDA_ARCH__ presence test (nvcc's device pass) widened to __HIP_DEVICE_COMPILE__",
        "Nothing to do; if the device branch was meant for NVIDIA GPUs alone, restore the test and give "
        "AMD its own branch.",
        "nvcc defines __CUDA_ARCH__ in device passes only, and code tests its presence to give a "
        "function a device and a host body, or to declare device-only overloads. hipcc never defines "
        "it; its device passes predefine __HIP_DEVICE_COMPILE__. So `#ifdef __CUDA_ARCH__`, "
        "`#ifndef`, and `defined(__CUDA_ARCH__)` in an #if/#elif become "
        "`(defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))` (the NVIDIA build is unchanged) "
        "where the macro is never compared with a number in that condition and the #if group holds "
        "nothing NVIDIA-only (inline assembly, `#pragma nv_*`, wmma, nested arch tests, a CUDA API "
        "without a HIP counterpart). Other __CUDA_ARCH__ tests are kept and reported (HIP302).",
    ),
)

# The registry: ids are stable forever (users silence them by id); add, never renumber.
# HIP1xx API support, HIP2xx portability, HIP3xx version macros, HIP4xx build/input, HIP5xx compiler
# errors found by --verify.
RULES: Mapping[str, Rule] = MappingProxyType(_rules(*API_RULES, *OTHER_RULES))


def rule_info(rule_id: str) -> Rule:
    return RULES[rule_id]
