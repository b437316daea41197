// Every operator kind of the runtime, in the order of OpType in schemas/model.fbs: the one
// list the OpKind enum, the op names, OpResolver::Add<Op>, the Register<Op> functions and the
// compile-time check against the schema (model_reader.cc) are generated from. Adding an op:
// append it here and to OpType/OpOptions in the schema, then write ops/<op>.cc.
#pragma once

#define EDGEFOLD_FOR_EACH_OP(X) \
  X(Conv)                       \
  X(Gemm)                       \
  X(MatMul)                     \
  X(BatchNorm)                  \
  X(ChannelAffine)              \
  X(Activation)                 \
  X(PRelu)                      \
  X(Binary)                     \
  X(Concat)                     \
  X(Reshape)                    \
  X(Transpose)                  \
  X(Pool)                       \
  X(GlobalPool)                 \
  X(Pad)                        \
  X(Softmax)                    \
  X(Slice)                      \
  X(Resize)                     \
  X(DepthToSpace)               \
  X(SpaceToDepth)               \
  X(ConvTranspose)              \
  X(LayerNorm)                  \
  X(Rnn)                        \
  X(Expand)                     \
  X(Reduce)                     \
  X(Quantize)                   \
  X(Dequantize)                 \
  X(ConvInt8)                   \
  X(GemmInt8)                   \
  X(AddInt8)                    \
  X(PoolInt8)                   \
  X(GlobalPoolInt8)             \
  X(LutInt8)                    \
  X(MulInt8)                    \
  X(SoftmaxInt8)
