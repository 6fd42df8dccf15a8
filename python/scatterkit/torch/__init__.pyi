from typing import Optional, Sequence, Union

import torch

from . import compat as compat

_Index = Union[torch.Tensor, int, Sequence[int]]
_Mask = Union[torch.Tensor, bool, Sequence[bool]]
_Source = Union[torch.Tensor, bool, int, float]
_Axis = Union[int, Sequence[int]]
_Bound = Union[Optional[int], Sequence[Optional[int]]]

def gather(x: torch.Tensor, index: _Index, axis: _Axis, *, mode: str = ...,
           fill_value: _Source = ...) -> torch.Tensor: ...
def index_select(x: torch.Tensor, index: _Index, axis: int, *, mode: str = ...,
                 fill_value: _Source = ...) -> torch.Tensor: ...
def gather_nd(x: torch.Tensor, index: _Index, *, batch_dims: int = ..., mode: str = ...,
              fill_value: _Source = ...) -> torch.Tensor: ...
def masked_select(x: torch.Tensor, mask: _Mask) -> torch.Tensor: ...
def scatter(x: torch.Tensor, index: _Index, src: _Source, axis: _Axis, *,
            reduce: Optional[str] = ..., include_self: bool = ..., mode: str = ...,
            out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def index_scatter(x: torch.Tensor, index: _Index, updates: _Source, axis: int = ..., *,
                  reduce: Optional[str] = ..., include_self: bool = ..., mode: str = ...,
                  out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def scatter_nd(x: torch.Tensor, index: _Index, updates: _Source, *,
               reduce: Optional[str] = ..., mode: str = ...,
               out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def slice_scatter(x: torch.Tensor, src: _Source, axis: _Axis = ..., start: _Bound = ...,
                  stop: _Bound = ..., step: _Bound = ..., *,
                  out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def diagonal_scatter(x: torch.Tensor, src: _Source, offset: int = ..., axis1: int = ...,
                     axis2: int = ..., *, out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def select_scatter(x: torch.Tensor, src: _Source, axis: int, index: int, *,
                   out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def masked_scatter(x: torch.Tensor, mask: _Mask, source: _Source, *,
                   out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
def tensor_scatter(cache: torch.Tensor, update: torch.Tensor,
                   write_indices: Optional[_Index] = ..., *, axis: int = ..., mode: str = ...,
                   out: Optional[torch.Tensor] = ...) -> torch.Tensor: ...
