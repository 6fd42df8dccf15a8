# Type stubs of the scatterkit package (scatterkit.torch has its own).
# A result has the kind of x: NumPy in, NumPy out; torch in, torch out; a
# Python scalar or list x gives a NumPy array. The overloads say so: the
# first one covers NumPy and Python data, the second any other tensor kind.
from typing import Any, Dict, Literal, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy as np

__version__: str
__all__: list[str]

_T = TypeVar("_T")
# any tensor: a numpy.ndarray, a torch.Tensor or another DLPack producer
Tensor = Any
# Python data numpy.asarray reads (x only)
PyData = Union[bool, int, float, Sequence[Any]]
Scalar = Union[bool, int, float, np.generic]
# a Python int or (nested) list of ints is made an int64 array
IndexLike = Union[Tensor, int, Sequence[Any]]
MaskLike = Union[Tensor, bool, Sequence[Any]]
Axis = Union[int, Sequence[int]]
Reduce = Optional[Literal["sum", "prod", "mean", "amax", "amin"]]
GatherMode = Literal["error", "clip", "fill"]
ScatterMode = Literal["error", "clip", "drop"]
TensorScatterMode = Literal["linear", "circular"]
SliceBound = Optional[Union[int, Sequence[Optional[int]]]]
# a backward's x, src, ...: the tensor, or only its shape
ShapeOrTensor = Union[Tensor, Tuple[int, ...], Sequence[int]]
# a gradient buffer: None allocates it, False skips it, a tensor receives it
GradOut = Union[None, bool, Tensor]

class ArgumentTypeError(ValueError, TypeError): ...

# ---- gather-type operators ----
@overload
def gather(x: Union[np.ndarray, PyData], index: IndexLike, axis: Axis, *,
           mode: GatherMode = ..., fill_value: Scalar = ...) -> np.ndarray: ...
@overload
def gather(x: _T, index: IndexLike, axis: Axis, *, mode: GatherMode = ...,
           fill_value: Scalar = ...) -> _T: ...
@overload
def index_select(x: Union[np.ndarray, PyData], index: IndexLike, axis: int, *,
                 mode: GatherMode = ..., fill_value: Scalar = ...) -> np.ndarray: ...
@overload
def index_select(x: _T, index: IndexLike, axis: int, *, mode: GatherMode = ...,
                 fill_value: Scalar = ...) -> _T: ...
@overload
def gather_nd(x: Union[np.ndarray, PyData], index: IndexLike, *, batch_dims: int = ...,
              mode: GatherMode = ..., fill_value: Scalar = ...) -> np.ndarray: ...
@overload
def gather_nd(x: _T, index: IndexLike, *, batch_dims: int = ..., mode: GatherMode = ...,
              fill_value: Scalar = ...) -> _T: ...
@overload
def masked_select(x: Union[np.ndarray, PyData], mask: MaskLike) -> np.ndarray: ...
@overload
def masked_select(x: _T, mask: MaskLike) -> _T: ...

# ---- scatter-type operators (out= is returned when given) ----
@overload
def scatter(x: Union[np.ndarray, PyData], index: IndexLike, src: Union[Tensor, Scalar],
            axis: Axis, *, reduce: Reduce = ..., include_self: bool = ...,
            mode: ScatterMode = ..., out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def scatter(x: _T, index: IndexLike, src: Union[Tensor, Scalar], axis: Axis, *,
            reduce: Reduce = ..., include_self: bool = ..., mode: ScatterMode = ...,
            out: Optional[Tensor] = ...) -> _T: ...
@overload
def index_scatter(x: Union[np.ndarray, PyData], index: IndexLike,
                  updates: Union[Tensor, Scalar], axis: int = ..., *, reduce: Reduce = ...,
                  include_self: bool = ..., mode: ScatterMode = ...,
                  out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def index_scatter(x: _T, index: IndexLike, updates: Union[Tensor, Scalar], axis: int = ...,
                  *, reduce: Reduce = ..., include_self: bool = ..., mode: ScatterMode = ...,
                  out: Optional[Tensor] = ...) -> _T: ...
@overload
def scatter_nd(x: Union[np.ndarray, PyData], index: IndexLike, updates: Union[Tensor, Scalar],
               *, reduce: Reduce = ..., mode: ScatterMode = ...,
               out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def scatter_nd(x: _T, index: IndexLike, updates: Union[Tensor, Scalar], *,
               reduce: Reduce = ..., mode: ScatterMode = ...,
               out: Optional[Tensor] = ...) -> _T: ...
@overload
def slice_scatter(x: Union[np.ndarray, PyData], src: Union[Tensor, Scalar], axis: Axis = ...,
                  start: SliceBound = ..., stop: SliceBound = ..., step: SliceBound = ..., *,
                  out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def slice_scatter(x: _T, src: Union[Tensor, Scalar], axis: Axis = ..., start: SliceBound = ...,
                  stop: SliceBound = ..., step: SliceBound = ..., *,
                  out: Optional[Tensor] = ...) -> _T: ...
@overload
def diagonal_scatter(x: Union[np.ndarray, PyData], src: Union[Tensor, Scalar], offset: int = ...,
                     axis1: int = ..., axis2: int = ..., *,
                     out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def diagonal_scatter(x: _T, src: Union[Tensor, Scalar], offset: int = ..., axis1: int = ...,
                     axis2: int = ..., *, out: Optional[Tensor] = ...) -> _T: ...
@overload
def select_scatter(x: Union[np.ndarray, PyData], src: Union[Tensor, Scalar], axis: int,
                   index: int, *, out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def select_scatter(x: _T, src: Union[Tensor, Scalar], axis: int, index: int, *,
                   out: Optional[Tensor] = ...) -> _T: ...
@overload
def masked_scatter(x: Union[np.ndarray, PyData], mask: MaskLike, source: Union[Tensor, Scalar],
                   *, out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def masked_scatter(x: _T, mask: MaskLike, source: Union[Tensor, Scalar], *,
                   out: Optional[Tensor] = ...) -> _T: ...
@overload
def tensor_scatter(cache: Union[np.ndarray, PyData], update: Tensor,
                   write_indices: Optional[IndexLike] = ..., *, axis: int = ...,
                   mode: TensorScatterMode = ..., out: Optional[Tensor] = ...) -> np.ndarray: ...
@overload
def tensor_scatter(cache: _T, update: Tensor, write_indices: Optional[IndexLike] = ..., *,
                   axis: int = ..., mode: TensorScatterMode = ...,
                   out: Optional[Tensor] = ...) -> _T: ...

# ---- threads, memory, diagnostics ----
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def empty_cache() -> int: ...
def set_buffer_cache_limit(nbytes: int) -> None: ...
def buffer_cache_info() -> Dict[str, int]: ...
def last_kernel() -> str: ...

# ---- backward: the gradients have grad_out's kind ----
def gather_backward(grad_out: _T, x: ShapeOrTensor, index: IndexLike, axis: Axis, *,
                    mode: GatherMode = ..., fill_value: Scalar = ...,
                    grad_x: GradOut = ...) -> Optional[_T]: ...
def index_select_backward(grad_out: _T, x: ShapeOrTensor, index: IndexLike, axis: int, *,
                          mode: GatherMode = ..., fill_value: Scalar = ...,
                          grad_x: GradOut = ...) -> Optional[_T]: ...
def gather_nd_backward(grad_out: _T, x: ShapeOrTensor, index: IndexLike, *,
                       batch_dims: int = ..., mode: GatherMode = ..., fill_value: Scalar = ...,
                       grad_x: GradOut = ...) -> Optional[_T]: ...
def masked_select_backward(grad_out: _T, x: ShapeOrTensor, mask: MaskLike, *,
                           grad_x: GradOut = ...) -> Optional[_T]: ...
def scatter_backward(grad_out: _T, x: Tensor, index: IndexLike, src: Union[Tensor, Scalar],
                     axis: Axis, *, reduce: Reduce = ..., include_self: bool = ...,
                     mode: ScatterMode = ..., result: Optional[Tensor] = ...,
                     grad_x: GradOut = ..., grad_src: GradOut = ...
                     ) -> Tuple[Optional[_T], Optional[_T]]: ...
def index_scatter_backward(grad_out: _T, x: Tensor, index: IndexLike,
                           updates: Union[Tensor, Scalar], axis: int = ..., *,
                           reduce: Reduce = ..., include_self: bool = ...,
                           mode: ScatterMode = ..., result: Optional[Tensor] = ...,
                           grad_x: GradOut = ..., grad_updates: GradOut = ...
                           ) -> Tuple[Optional[_T], Optional[_T]]: ...
def scatter_nd_backward(grad_out: _T, x: Tensor, index: IndexLike,
                        updates: Union[Tensor, Scalar], *, reduce: Reduce = ...,
                        mode: ScatterMode = ..., result: Optional[Tensor] = ...,
                        grad_x: GradOut = ..., grad_updates: GradOut = ...
                        ) -> Tuple[Optional[_T], Optional[_T]]: ...
def slice_scatter_backward(grad_out: _T, x: ShapeOrTensor, src: Union[ShapeOrTensor, Scalar],
                           axis: Axis = ..., start: SliceBound = ..., stop: SliceBound = ...,
                           step: SliceBound = ..., *, grad_x: GradOut = ...,
                           grad_src: GradOut = ...) -> Tuple[Optional[_T], Optional[_T]]: ...
def diagonal_scatter_backward(grad_out: _T, x: ShapeOrTensor,
                              src: Union[ShapeOrTensor, Scalar], offset: int = ...,
                              axis1: int = ..., axis2: int = ..., *, grad_x: GradOut = ...,
                              grad_src: GradOut = ...) -> Tuple[Optional[_T], Optional[_T]]: ...
def select_scatter_backward(grad_out: _T, x: ShapeOrTensor, src: Union[ShapeOrTensor, Scalar],
                            axis: int, index: int, *, grad_x: GradOut = ...,
                            grad_src: GradOut = ...) -> Tuple[Optional[_T], Optional[_T]]: ...
def masked_scatter_backward(grad_out: _T, x: ShapeOrTensor, mask: MaskLike,
                            source: Union[ShapeOrTensor, Scalar], *, grad_x: GradOut = ...,
                            grad_source: GradOut = ...) -> Tuple[Optional[_T], Optional[_T]]: ...
def tensor_scatter_backward(grad_out: _T, cache: ShapeOrTensor, update: ShapeOrTensor,
                            write_indices: Optional[IndexLike] = ..., *, axis: int = ...,
                            mode: TensorScatterMode = ..., grad_cache: GradOut = ...,
                            grad_update: GradOut = ...
                            ) -> Tuple[Optional[_T], Optional[_T]]: ...
