// A fleet device's state between runs (edgefold-fleet-device --state DIR; fleet/m4_bridge.py
// keeps the same files): the last round whose update the broker acknowledged, the last round
// whose global record was applied, and that record. A restarted device applies the record and
// goes on from the next round, sending only the updates it had not sent (docs/fleet.md).
//   DIR/state.txt    "edgefold-device-state 1 sent <S> applied <A>"
//   DIR/global.bin   the applied global record, as received (signed)
// Each file is written to a temporary name and renamed: a crash leaves the old state or the new.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace edgefold::fleet {

struct DeviceState {
  uint32_t sent = 0, applied = 0;
  std::vector<uint8_t> global;  // empty when applied == 0
};

// No state.txt: a fresh state, true. False (with *error naming the file and field) when
// state.txt or global.bin is unreadable or malformed.
bool LoadDeviceState(const std::string& dir, DeviceState* out, std::string* error);
// Writes global.bin (when `with_global`) then state.txt.
bool SaveDeviceState(const std::string& dir, const DeviceState& state, bool with_global,
                     std::string* error);

}  // namespace edgefold::fleet
