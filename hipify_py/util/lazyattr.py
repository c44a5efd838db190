"""`cached`: functools.cached_property without its lock, for per-file objects used by one thread.

Python 3.11's cached_property takes an RLock on every first read (Python 3.12 dropped it); the
per-file Context and Scan read ~5 of them a file. Same behaviour otherwise: the value is computed
on the first read and stored in the instance's __dict__, where later reads find it directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached(Generic[T]):
    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value
