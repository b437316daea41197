// Per-kind backward functions (see backward.h for the contract).
#pragma once
#include "training/trainer_state.h"

namespace edgefold::internal {

void BackwardConv(Trainer::State& s, const OpDesc& op);
void BackwardGemm(Trainer::State& s, const OpDesc& op);
void BackwardBatchNorm(Trainer::State& s, const OpDesc& op, const BnState& bn);
void BackwardChannelAffine(Trainer::State& s, const OpDesc& op);
void BackwardActivation(Trainer::State& s, const OpDesc& op);
void BackwardPRelu(Trainer::State& s, const OpDesc& op);
void BackwardBinary(Trainer::State& s, const OpDesc& op);
void BackwardConcat(Trainer::State& s, const OpDesc& op);
void BackwardReshape(Trainer::State& s, const OpDesc& op);
void BackwardTranspose(Trainer::State& s, const OpDesc& op);
void BackwardDepthSpace(Trainer::State& s, const OpDesc& op);
void BackwardPool(Trainer::State& s, const OpDesc& op);
void BackwardGlobalPool(Trainer::State& s, const OpDesc& op);
void BackwardPad(Trainer::State& s, const OpDesc& op);
void BackwardSoftmax(Trainer::State& s, const OpDesc& op);

}  // namespace edgefold::internal
