#include "efb_describe.h"

#include <cstdio>

namespace edgefold::tools {
namespace {

std::string IntList(const flatbuffers::Vector<int32_t>* v, const char* sep) {
  std::string s;
  if (v == nullptr) return s;
  for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i)
    s += (i ? sep : "") + std::to_string(v->Get(i));
  return s;
}

std::string ShapeOf(const fb::Tensor& t) { return "[" + IntList(t.shape(), ", ") + "]"; }

// The fused activation of ops that carry one, or nullptr.
const fb::Activation* FusedActivation(const fb::Operator& op) {
  if (auto* o = op.options_as_ConvOptions()) return o->activation();
  if (auto* o = op.options_as_ConvTransposeOptions()) return o->activation();
  if (auto* o = op.options_as_GemmOptions()) return o->activation();
  if (auto* o = op.options_as_BatchNormOptions()) return o->activation();
  if (auto* o = op.options_as_ChannelAffineOptions()) return o->activation();
  if (auto* o = op.options_as_ActivationOptions()) return o->activation();
  if (auto* o = op.options_as_BinaryOptions()) return o->activation();
  return nullptr;
}

std::string Window(const flatbuffers::Vector<int32_t>* kernel,
                   const flatbuffers::Vector<int32_t>* strides,
                   const flatbuffers::Vector<int32_t>* pads) {
  return " k" + IntList(kernel, "x") + " s" + IntList(strides, "x") + " p" + IntList(pads, ",");
}

std::string Details(const fb::Operator& op) {
  if (auto* o = op.options_as_ConvOptions()) {
    const fb::WeightPacking packing = o->packing();
    const bool x_nhwc = packing == fb::WeightPacking::TransposedNhwcIn ||
                        packing == fb::WeightPacking::TransposedNhwc;
    const bool y_nhwc = packing == fb::WeightPacking::TransposedNhwcOut ||
                        packing == fb::WeightPacking::TransposedNhwc;
    return Window(o->kernel(), o->strides(), o->pads()) + " d" + IntList(o->dilations(), "x") +
           " g" + std::to_string(o->group()) + (x_nhwc ? " in NHWC" : "") +
           (y_nhwc ? " out NHWC" : "");
  }
  if (auto* o = op.options_as_ConvTransposeOptions()) {
    return Window(o->kernel(), o->strides(), o->pads()) + " d" + IntList(o->dilations(), "x") +
           " g" + std::to_string(o->group());
  }
  if (auto* o = op.options_as_RnnOptions()) {
    return std::string("(") + fb::EnumNameRnnCell(o->cell()) + " " +
           fb::EnumNameRnnDirection(o->direction()) + ") hidden " +
           std::to_string(o->hidden_size()) + (o->linear_before_reset() ? " lbr" : "");
  }
  if (auto* o = op.options_as_PoolOptions()) {
    return std::string("(") + fb::EnumNamePoolKind(o->kind()) + ")" +
           Window(o->kernel(), o->strides(), o->pads());
  }
  if (auto* o = op.options_as_GlobalPoolOptions()) {
    return std::string("(") + fb::EnumNamePoolKind(o->kind()) + ")";
  }
  if (auto* o = op.options_as_BinaryOptions()) {
    return std::string("(") + fb::EnumNameBinaryKind(o->kind()) + ")";
  }
  if (auto* o = op.options_as_BatchNormOptions()) {
    return " eps=" + std::to_string(o->epsilon());
  }
  if (auto* o = op.options_as_ConcatOptions()) return " axis=" + std::to_string(o->axis());
  if (auto* o = op.options_as_SoftmaxOptions()) return " axis=" + std::to_string(o->axis());
  if (auto* o = op.options_as_TransposeOptions()) return " perm=" + IntList(o->perm(), ",");
  if (auto* o = op.options_as_ResizeOptions()) {
    std::string s = std::string("(") + fb::EnumNameResizeMode(o->mode());
    if (o->mode() == fb::ResizeMode::Nearest)
      s += std::string(", ") + fb::EnumNameNearestMode(o->nearest_mode());
    s += ")";
    if (o->scales() != nullptr && o->offsets() != nullptr && o->scales()->size() == 2 &&
        o->offsets()->size() == 2) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), " step=%.6g,%.6g offset=%.6g,%.6g", o->scales()->Get(0),
                    o->scales()->Get(1), o->offsets()->Get(0), o->offsets()->Get(1));
      s += buf;
    }
    return s;
  }
  if (auto* o = op.options_as_DepthToSpaceOptions())
    return " block=" + std::to_string(o->blocksize()) + (o->crd() ? " CRD" : " DCR");
  if (auto* o = op.options_as_SpaceToDepthOptions())
    return " block=" + std::to_string(o->blocksize());
  return "";
}

}  // namespace

std::string DescribeTensorRef(const fb::Model& model, int index) {
  if (index == -1) return "<absent>";
  const auto* tensors = model.tensors();
  if (tensors == nullptr || index < 0 ||
      static_cast<flatbuffers::uoffset_t>(index) >= tensors->size()) {
    return "<bad tensor index " + std::to_string(index) + ">";
  }
  const fb::Tensor* t = tensors->Get(index);
  const std::string name = t->name() ? t->name()->str() : "";
  return (name.empty() ? "#" + std::to_string(index) : name) + " " + ShapeOf(*t) +
         (t->weight_offset() >= 0 ? " (const)" : "");
}

std::string DescribeDType(const fb::Model& model, int index) {
  const auto* tensors = model.tensors();
  if (tensors == nullptr || index < 0 ||
      static_cast<flatbuffers::uoffset_t>(index) >= tensors->size())
    return "";
  const fb::Tensor* t = tensors->Get(static_cast<flatbuffers::uoffset_t>(index));
  std::string s = std::string(" ") + fb::EnumNameDType(t->dtype());
  const fb::QuantParams* q = t->quant();
  if (q != nullptr && q->scales() != nullptr && q->zero_points() != nullptr &&
      q->scales()->size() == 1 && q->zero_points()->size() == 1) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " scale %.9g zero point %d", double(q->scales()->Get(0)),
                  static_cast<int>(q->zero_points()->Get(0)));
    s += buf;
  }
  return s;
}

std::string DescribeTensor(const fb::Tensor& t) {
  std::string where = t.arena_offset() >= 0    ? "arena@" + std::to_string(t.arena_offset())
                      : t.weight_offset() >= 0 ? "weights@" + std::to_string(t.weight_offset())
                                               : "unplaced";
  std::string layout =
      t.layout() == fb::Layout::NCHW ? "" : std::string(" ") + fb::EnumNameLayout(t.layout());
  return ShapeOf(t) + " " + fb::EnumNameDType(t.dtype()) + layout + " " + where + " " +
         std::to_string(t.bytes()) + " B";
}

std::string DescribeOpType(const fb::Operator& op) {
  const char* type = fb::EnumNameOpType(op.type());
  std::string s = *type ? type : "<unknown op type " + std::to_string(int(op.type())) + ">";
  const fb::Activation* act = FusedActivation(op);
  if (act != nullptr && act->kind() != fb::ActivationKind::None) {
    const char* name = fb::EnumNameActivationKind(act->kind());
    s += std::string("+") + (*name ? name : "?");
  }
  return s + Details(op);
}

}  // namespace edgefold::tools
