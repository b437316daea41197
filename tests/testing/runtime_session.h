// An interpreter or trainer created the way every runtime test needs one: the model copied into
// a 64-byte aligned buffer, an arena of exactly the size the model asks for, and the runtime's
// messages collected in `log`. The session owns model, arena and log; the interpreter or trainer
// lives in the arena and is valid as long as the session.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "edgefold/interpreter.h"
#include "edgefold/trainer.h"
#include "testing/efb_builder.h"

namespace edgefold::testing {

// An Options::log callback: appends the message and a newline to the std::string at `user`.
void AppendLog(void* user, const char* message);

// Options for level `isa` whose messages go to *log.
Options LoggingOptions(std::string* log, Isa isa = Isa::kAuto);

struct Session {
  explicit Session(const std::vector<uint8_t>& bytes) : model(bytes) {}
  AlignedBuffer model;
  AlignedBuffer arena{0};
  std::string log;
  bool sized = false;           // the Required*ArenaBytes call succeeded
  Status status = Status::kOk;  // of sizing the arena, then of Create
};

struct InterpreterSession : Session {
  using Session::Session;
  Interpreter* interp = nullptr;  // null unless status is kOk
};
// resolver: Options::resolver (nullptr: every op of this build).
std::unique_ptr<InterpreterSession> CreateInterpreter(const std::vector<uint8_t>& bytes,
                                                      Isa isa = Isa::kAuto,
                                                      const OpResolver* resolver = nullptr);

struct TrainerSession : Session {
  using Session::Session;
  Trainer* trainer = nullptr;  // null unless status is kOk
};
std::unique_ptr<TrainerSession> CreateTrainer(const std::vector<uint8_t>& bytes,
                                              const TrainOptions& train, Isa isa = Isa::kAuto);

}  // namespace edgefold::testing
