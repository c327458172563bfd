"""A software prefetch hint for the token kernels (llvm.prefetch of one array element).

An MH step's loads are random (hash slots, table entries of the proposed topic) and each token's
steps take longer than the out-of-order window, so the hardware cannot fetch the next ones early;
the kernels name them ahead of use instead.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, index):
    """Hint that element ``index`` of C-contiguous ``arr`` (the flat index, row-major) will be
    read soon, into every cache level. Only a hint: no index can fault, so none is checked."""
    if not isinstance(arr, types.Array) or arr.layout != "C" or not isinstance(index, types.Integer):
        raise TypingError("prefetch(arr, index) needs a C-contiguous array and an integer index")
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i64, i32 = ir.IntType(64), ir.IntType(32)
        offset = args[1]
        if offset.type.width < 64:
            offset = builder.sext(offset, i64) if signature.args[1].signed else builder.zext(offset, i64)
        itemsize = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        address = builder.add(builder.ptrtoint(ary.data, i64), builder.mul(offset, ir.Constant(i64, itemsize)))
        ptr = builder.inttoptr(address, ir.IntType(8).as_pointer())
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32]),
                                              "llvm.prefetch.p0")
        builder.call(hint, [ptr, i32(0), i32(3), i32(1)])  # read, keep in all levels, data cache
        return context.get_dummy_value()

    return sig, codegen
