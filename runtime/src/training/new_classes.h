// The classes `compile --new-classes K` appended to the classifier, initialized on the device.
#pragma once
#include "training/trainer_state.h"

namespace edgefold::internal {

// Fills the last K outputs of the head's (trainable) weight copy from a seeded uniform
// distribution: Kaiming (He) bound √(6 / fan_in) when a ReLU follows the head, else Xavier
// (Glorot) √(6 / (fan_in + fan_out)); their biases are zero in the model. kInvalidModel naming
// the head when its weights are not trained or K exceeds its outputs.
Status InitializeNewClasses(Trainer::State& s, uint32_t seed);

}  // namespace edgefold::internal
