"""Facts about the operators HIP defines on its vector types (float4, int2, uchar4, ...).

Source: hip/amd_detail/amd_hip_vector_types.h of HIP 5.2, checked by compiling with hipcc:
scripts/probe_vector_ops.py writes mappings/vector-ops-<HIP>.yaml per release (tests/test_merged.py
holds the constants below equal to the 5.2 table). ROCm 6.4 and 7.2 also define non-template friend
`operator*` and `operator/` (vector, vector), so a user's element-wise `float2 operator*(float2, float2)`
(helper_math.h) is ambiguous there too: the rule reads which forms are ambiguous from the table of
the target (rules/vector_ops.ambiguous_forms); the constants below are HIP 5.2's, for the tests.

Each vector type is `HIP_vector_type<T, n>`. It has
- non-template member operators `+= -= *= /=` taking the same vector type, and `++`/`--` (prefix and
  postfix): a user's `__host__ __device__` free operator with the same operands is an equally good
  match, so every use is ambiguous (error: use of overloaded operator is ambiguous);
- free function templates for `+ - * / % ^ | & << >>` (vector op vector, vector op any scalar, any
  scalar op vector) and member templates `+= -= *= /=` taking any scalar convertible to T: the scalar
  is broadcast to every component. A user's non-template operator still wins for its exact operand
  types, but a call with another scalar type (an int or double for a float vector) now picks HIP's.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

# CUDA/HIP vector type base name -> component type (`char1..4` hold signed char in both).
_BASES: Mapping[str, str] = {
    "char": "signed char",
    "uchar": "unsigned char",
    "short": "short",
    "ushort": "unsigned short",
    "int": "int",
    "uint": "unsigned int",
    "long": "long",
    "ulong": "unsigned long",
    "longlong": "long long",
    "ulonglong": "unsigned long long",
    "float": "float",
    "double": "double",
}
COMPONENTS = ("x", "y", "z", "w")

# vector type -> (component type, number of components)
VECTOR_TYPES: Mapping[bytes, tuple[str, int]] = MappingProxyType(
    {f"{base}{n}".encode(): (scalar, n) for base, scalar in _BASES.items() for n in (1, 2, 3, 4)}
)
FLOATING = frozenset({"float", "double"})

# cuComplex.h's types are typedefs of float2/double2 in CUDA and become hipFloatComplex/hipDoubleComplex,
# typedefs of HIP's float2/double2 (HIP 5.2's hip_complex.h also gives them complex operators of its own:
# the forms are probed apart, `complex_ambiguous` in mappings/probed/vector-ops-<HIP>.yaml).
COMPLEX_TYPES: Mapping[bytes, tuple[str, int]] = MappingProxyType(
    {b"cuFloatComplex": ("float", 2), b"cuComplex": ("float", 2), b"cuDoubleComplex": ("double", 2)}
)
# every type a user operator may take that HIP gives operators of its own
OPERAND_TYPES: Mapping[bytes, tuple[str, int]] = MappingProxyType({**VECTOR_TYPES, **COMPLEX_TYPES})

# Member operators (not templates) that a user's host+device free operator makes ambiguous.
AMBIGUOUS_COMPOUND = frozenset({"+=", "-=", "*=", "/="})  # with an operand of the same vector type
AMBIGUOUS_STEP = frozenset({"++", "--"})  # prefix `(T&)` and postfix `(T&, int)`

# Operators HIP defines as templates with a broadcast scalar operand (any scalar type U).
BROADCAST_BINARY = frozenset({"+", "-", "*", "/", "%", "^", "|", "&", "<<", ">>"})
BROADCAST_COMPOUND = frozenset({"+=", "-=", "*=", "/="})  # member templates, U convertible to T

# Spellings of arithmetic scalar types in a parameter (after dropping const/&).
SCALAR_SPELLINGS: Mapping[str, str] = MappingProxyType(
    {
        "float": "float",
        "double": "double",
        "int": "int",
        "signed": "int",
        "signed int": "int",
        "unsigned": "unsigned int",
        "unsigned int": "unsigned int",
        "uint": "unsigned int",
        "char": "char",
        "signed char": "signed char",
        "unsigned char": "unsigned char",
        "uchar": "unsigned char",
        "short": "short",
        "short int": "short",
        "unsigned short": "unsigned short",
        "ushort": "unsigned short",
        "long": "long",
        "long int": "long",
        "unsigned long": "unsigned long",
        "long long": "long long",
        "unsigned long long": "unsigned long long",
        "size_t": "unsigned long",
    }
)
