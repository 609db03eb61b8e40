"""Type stubs of the nanobind extension (python/steptp/_core.cpp)."""

from typing import List, Tuple

def call(operation: str, request: str, work_budget: int = 4000000000,
         memory_budget_bytes: int = 8589934592) -> Tuple[int, str]:
    """Runs one operation of service/api.h: (HTTP-style status, JSON answer or error)."""

def operations() -> List[str]:
    """The operation names."""

def openapi() -> str:
    """The OpenAPI document of `steptp serve`."""
