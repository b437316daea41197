#include "testing/runtime_session.h"

namespace edgefold::testing {

void AppendLog(void* user, const char* message) {
  auto* log = static_cast<std::string*>(user);
  *log += message;
  *log += '\n';
}

Options LoggingOptions(std::string* log, Isa isa) {
  Options options;
  options.isa = isa;
  options.log = AppendLog;
  options.log_user = log;
  return options;
}

std::unique_ptr<InterpreterSession> CreateInterpreter(const std::vector<uint8_t>& bytes, Isa isa,
                                                      const OpResolver* resolver) {
  auto s = std::make_unique<InterpreterSession>(bytes);
  Options options = LoggingOptions(&s->log, isa);
  options.resolver = resolver;
  size_t arena_bytes = 0;
  s->status = RequiredArenaBytes(s->model.data(), s->model.size(), &arena_bytes, options);
  s->sized = s->status == Status::kOk;
  if (!s->sized) return s;
  s->arena = AlignedBuffer(arena_bytes);
  s->status = Interpreter::Create(s->model.data(), s->model.size(), s->arena.data(), arena_bytes,
                                  options, &s->interp);
  return s;
}

std::unique_ptr<TrainerSession> CreateTrainer(const std::vector<uint8_t>& bytes,
                                              const TrainOptions& train, Isa isa) {
  auto s = std::make_unique<TrainerSession>(bytes);
  const Options options = LoggingOptions(&s->log, isa);
  size_t arena_bytes = 0;
  s->status =
      RequiredTrainingArenaBytes(s->model.data(), s->model.size(), train, &arena_bytes, options);
  s->sized = s->status == Status::kOk;
  if (!s->sized) return s;
  s->arena = AlignedBuffer(arena_bytes);
  s->status = Trainer::Create(s->model.data(), s->model.size(), s->arena.data(), arena_bytes, train,
                              options, &s->trainer);
  return s;
}

}  // namespace edgefold::testing
