// GPU occupancy benchmark: a discrete-event simulation (simulated time, so it
// runs in seconds on a loaded 2-core machine) of GPU-like servers in front of
// the scripted teacher's rollout shape, routed by the real EndpointPool and,
// for `auto`, sized by the real ConcurrencyTuner.
//
//   bench_gpu_occupancy [endpoints=4] [slots=16] [command_s=2.0] [tasks=600] [cores=32]
//
// A server has `slots` sequences decoding at once (continuous batching: a
// request starts as soon as a slot frees), prefill and decode times per
// token, and an LRU prefix cache per conversation. A task is the scripted
// teacher's shape: rollout 1 (20 turns), judge, issue, rollout 2 (20 turns);
// after each agent turn a command runs on one of the node's `cores` for about
// `command_s` seconds (exponential, capped at 8x). Prints, per concurrency
// (fixed multiples of the slots, then auto): steady-state busy fraction,
// idle causes, agent-turn cache hit rate, share of turns on the previous
// turn's endpoint, tasks per hour; then auto with the servers slowing to
// half speed mid-run.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <list>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "seragen/base/clock.h"
#include "seragen/base/rng.h"
#include "seragen/llm/concurrency_tuner.h"
#include "seragen/llm/endpoint_pool.h"

using namespace seragen;

namespace {

struct Params {
  int endpoints = 4, slots = 16, tasks = 600, cores = 32, turns = 20;
  double command_s = 2.0;       // mean sandboxed command time
  double prefill_tps = 6000;    // uncached prompt tokens per second per request
  double decode_tps = 40;       // output tokens per second per sequence
  double cache_tokens = 1.2e6;  // prefix cache per server
  bool slow_down = false;       // decode and prefill halve once half the tasks are done
};

struct Request {
  std::size_t task = 0;
  std::string conversation;
  double prompt = 0;
  double output = 0;
  bool agent_turn = false;
  std::function<void()> done;
};

struct Server {
  int slots = 0;
  int running = 0;
  std::deque<Request> waiting;
  std::list<std::string> lru;  // most recent first
  std::unordered_map<std::string, std::pair<double, std::list<std::string>::iterator>> cache;
  double cached_total = 0;
};

struct Figures {
  double busy_slot_s = 0, slot_s = 0;
  std::map<std::string, double> idle;  // cause -> free slot-seconds
  double agent_prompt = 0, agent_cached = 0;
  std::uint64_t turns = 0, same_endpoint = 0;
  int finished_in_window = 0;
  double window_s = 0;
  int max_waiting = 0;
  double limit_sum = 0, limit_samples = 0;
  int limit_before_slow = 0, limit_end = 0;
};

class Sim {
 public:
  Sim(Params p, int concurrency) : p_(p), fixed_(concurrency), rng_(7), pool_(Endpoints(p), Options(), clock_) {
    servers_.resize(static_cast<std::size_t>(p.endpoints));
    for (auto& s : servers_) s.slots = p.slots;
    tasks_.resize(static_cast<std::size_t>(p.tasks));
    llm::ConcurrencyTunerOptions to;
    to.max_limit = 8 * p.endpoints * p.slots;
    tuner_ = llm::ConcurrencyTuner(to, p.endpoints * p.slots);
  }

  Figures Run() {
    At(0, [this] { Fill(); });
    if (fixed_ == 0) At(1, [this] { Tick(); });
    while (!events_.empty() && finished_ < p_.tasks) {
      auto [t, seq, fn] = events_.top();
      events_.pop();
      Integrate(t);
      now_ = t;
      clock_.Advance(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(t) - clock_since_));
      clock_since_ = std::chrono::duration<double>(t);
      fn();
    }
    f_.window_s = window_end_ - window_start_;
    return f_;
  }

 private:
  struct Event {
    double t;
    std::uint64_t seq;
    std::function<void()> fn;
    bool operator<(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  enum class Phase { kIdle, kModel, kCommand, kCpuWait, kTransition, kDone };
  struct Task {
    Phase phase = Phase::kIdle;
    int stage = 0;  // 0 rollout 1, 1 judge, 2 issue, 3 rollout 2
    int turn = 0;
    double prompt = 0;
    std::optional<std::size_t> last_endpoint;
  };

  static std::vector<llm::EndpointOptions> Endpoints(const Params& p) {
    std::vector<llm::EndpointOptions> v(static_cast<std::size_t>(p.endpoints));
    for (std::size_t i = 0; i < v.size(); ++i) v[i].base_url = "http://sim" + std::to_string(i);
    return v;
  }
  static llm::EndpointPoolOptions Options() { return {}; }

  void At(double t, std::function<void()> fn) { events_.push({t, seq_++, std::move(fn)}); }
  int Limit() const { return fixed_ > 0 ? fixed_ : tuner_.limit(); }
  bool InWindow() const { return finished_ >= p_.tasks / 10 && next_ < tasks_.size(); }

  void Fill() {
    while (in_flight_ < Limit() && next_ < tasks_.size()) {
      std::size_t i = next_++;
      ++in_flight_;
      StartStage(i);
    }
  }

  void StartStage(std::size_t i) {
    Task& t = tasks_[i];
    t.turn = 0;
    t.prompt = t.stage == 1 || t.stage == 2 ? 6000 : 2500;
    Call(i);
  }

  void Call(std::size_t i) {
    Task& t = tasks_[i];
    t.phase = Phase::kModel;
    bool agent = t.stage == 0 || t.stage == 3;
    Request r{i, std::to_string(i) + "/" + std::to_string(t.stage), t.prompt, agent ? 150.0 : 400.0, agent, {}};
    r.done = [this, i] { Answered(i); };
    auto index = pool_.Acquire(std::to_string(i));
    if (agent && t.turn > 0 && InWindow()) {
      ++f_.turns;
      if (t.last_endpoint == index) ++f_.same_endpoint;
    }
    t.last_endpoint = index;
    Send(*index, std::move(r));
  }

  void Send(std::size_t e, Request r) {
    Server& s = servers_[e];
    if (s.running < s.slots) return Start(e, std::move(r));
    s.waiting.push_back(std::move(r));
    if (InWindow()) f_.max_waiting = std::max(f_.max_waiting, static_cast<int>(s.waiting.size()));
  }

  void Start(std::size_t e, Request r) {
    Server& s = servers_[e];
    ++s.running;
    double cached = 0;
    if (auto it = s.cache.find(r.conversation); it != s.cache.end()) cached = std::min(it->second.first, r.prompt);
    if (r.agent_turn && InWindow()) {
      f_.agent_prompt += r.prompt;
      f_.agent_cached += cached;
    }
    double speed = p_.slow_down && finished_ >= p_.tasks / 2 ? 0.5 : 1.0;
    double service = (r.prompt - cached) / (p_.prefill_tps * speed) + r.output / (p_.decode_tps * speed);
    At(now_ + service, [this, e, r = std::move(r)]() mutable { Complete(e, std::move(r)); });
  }

  void Complete(std::size_t e, Request r) {
    Server& s = servers_[e];
    --s.running;
    Remember(s, r.conversation, r.prompt + r.output);
    pool_.Release(e, llm::FailureClass::kNone);
    if (!s.waiting.empty()) {
      Request next = std::move(s.waiting.front());
      s.waiting.pop_front();
      Start(e, std::move(next));
    }
    r.done();
  }

  void Remember(Server& s, const std::string& key, double tokens) {
    if (auto it = s.cache.find(key); it != s.cache.end()) {
      s.cached_total -= it->second.first;
      s.lru.erase(it->second.second);
      s.cache.erase(it);
    }
    s.lru.push_front(key);
    s.cache[key] = {tokens, s.lru.begin()};
    s.cached_total += tokens;
    while (s.cached_total > p_.cache_tokens && !s.lru.empty()) {
      auto victim = s.cache.find(s.lru.back());
      s.cached_total -= victim->second.first;
      s.cache.erase(victim);
      s.lru.pop_back();
    }
  }

  void Answered(std::size_t i) {
    Task& t = tasks_[i];
    bool agent = t.stage == 0 || t.stage == 3;
    if (agent && ++t.turn < p_.turns) {
      t.prompt += 150 + 350;
      return RunCommand(i);
    }
    if (++t.stage == 4) {
      t.phase = Phase::kDone;
      --in_flight_;
      ++finished_;
      if (InWindow()) ++f_.finished_in_window;
      if (finished_ == p_.tasks / 10) window_start_ = now_;
      if (next_ == tasks_.size() && window_end_ == 0) {
        window_end_ = now_;
        f_.limit_end = Limit();
      }
      if (p_.slow_down && finished_ == p_.tasks / 2) f_.limit_before_slow = Limit();
      return Fill();
    }
    t.phase = Phase::kTransition;
    At(now_ + 0.05, [this, i] { StartStage(i); });
  }

  void RunCommand(std::size_t i) {
    if (busy_cores_ < p_.cores) return StartCommand(i);
    tasks_[i].phase = Phase::kCpuWait;
    cpu_queue_.push_back(i);
  }

  void StartCommand(std::size_t i) {
    ++busy_cores_;
    tasks_[i].phase = Phase::kCommand;
    double d = std::min(rng_.Exponential(p_.command_s), 8 * p_.command_s);
    At(now_ + d, [this, i] {
      --busy_cores_;
      if (!cpu_queue_.empty()) {
        std::size_t next = cpu_queue_.front();
        cpu_queue_.pop_front();
        StartCommand(next);
      }
      Call(i);
    });
  }

  // Every simulated second: the tuner's sample (the servers' /metrics and the
  // node's CPU pressure); every 10 s its decision.
  void Tick() {
    std::vector<llm::EndpointLoad> load;
    for (const auto& s : servers_) load.push_back({double(s.running), double(s.waiting.size())});
    // CPU pressure: the share of the commands' time spent waiting for a CPU.
    double waiting = double(cpu_queue_.size());
    tuner_.Sample(load, waiting / std::max(1.0, waiting + busy_cores_));
    if (++ticks_ % 10 == 0) {
      tuner_.Decide(in_flight_);
      Fill();
    }
    if (InWindow()) {
      f_.limit_sum += Limit();
      f_.limit_samples += 1;
    }
    if (finished_ < p_.tasks) At(now_ + 1, [this] { Tick(); });
  }

  // Slot-time between the last event and `t`, busy or idle by cause.
  void Integrate(double t) {
    double dt = t - now_;
    if (dt <= 0 || !InWindow()) return;
    int phases[6] = {0, 0, 0, 0, 0, 0};
    for (std::size_t i = 0; i < next_; ++i) ++phases[static_cast<int>(tasks_[i].phase)];
    int waiting_total = 0;
    for (const auto& s : servers_) waiting_total += static_cast<int>(s.waiting.size());
    double free_total = 0;
    for (const auto& s : servers_) {
      f_.busy_slot_s += s.running * dt;
      f_.slot_s += s.slots * dt;
      double free = s.slots - s.running;
      double imbalance = std::min(free, double(waiting_total - static_cast<int>(s.waiting.size())));
      f_.idle["routing (another endpoint queues)"] += imbalance * dt;
      free_total += free - imbalance;
    }
    double commands = phases[int(Phase::kCommand)];
    double cpu = phases[int(Phase::kCpuWait)];
    double trans = phases[int(Phase::kTransition)];
    double others = commands + cpu + trans;
    double explained = std::min(free_total, others);
    if (others > 0) {
      f_.idle["sandbox commands"] += explained * commands / others * dt;
      f_.idle["commands waiting for a CPU"] += explained * cpu / others * dt;
      f_.idle["stage transitions"] += explained * trans / others * dt;
    }
    f_.idle["concurrency (too few tasks)"] += (free_total - explained) * dt;
  }

  Params p_;
  int fixed_;
  Rng rng_;
  FakeClock clock_;
  std::chrono::duration<double> clock_since_{0};
  llm::EndpointPool pool_;
  llm::ConcurrencyTuner tuner_{{}, 1};
  std::vector<Server> servers_;
  std::vector<Task> tasks_;
  std::priority_queue<Event> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  std::size_t next_ = 0;
  int in_flight_ = 0;
  int finished_ = 0;
  int busy_cores_ = 0;
  std::deque<std::size_t> cpu_queue_;
  std::uint64_t ticks_ = 0;
  double window_start_ = 0, window_end_ = 0;
  Figures f_;
};

void Print(const char* label, const Figures& f, double limit) {
  double slot = std::max(f.slot_s, 1e-9);
  std::printf(
      "%-10s limit %6.1f  busy %5.1f%%  cache hit %5.1f%%  same endpoint %5.1f%%  tasks/h %7.0f  max queue %3d\n",
      label, limit, 100 * f.busy_slot_s / slot, 100 * f.agent_cached / std::max(f.agent_prompt, 1.0),
      100.0 * double(f.same_endpoint) / double(std::max<std::uint64_t>(f.turns, 1)),
      3600.0 * f.finished_in_window / std::max(f.window_s, 1e-9), f.max_waiting);
  std::printf("           idle:");
  for (const auto& [cause, s] : f.idle) {
    if (s / slot >= 0.001) std::printf("  %s %.1f%%", cause.c_str(), 100 * s / slot);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  if (argc > 1) p.endpoints = std::atoi(argv[1]);
  if (argc > 2) p.slots = std::atoi(argv[2]);
  if (argc > 3) p.command_s = std::atof(argv[3]);
  if (argc > 4) p.tasks = std::atoi(argv[4]);
  if (argc > 5) p.cores = std::atoi(argv[5]);
  if (p.endpoints < 1 || p.slots < 1 || p.tasks < 20 || p.cores < 1 || p.command_s < 0) {
    std::fprintf(stderr, "usage: bench_gpu_occupancy [endpoints] [slots] [command_s] [tasks>=20] [cores]\n");
    return 2;
  }
  std::printf("%d endpoints x %d slots, commands ~%.2f s on %d cores, %d tasks x (2 rollouts of %d turns + 2 calls)\n",
              p.endpoints, p.slots, p.command_s, p.cores, p.tasks, p.turns);
  double best = 0;
  for (double m : {1.0, 1.5, 2.0, 3.0, 4.0}) {
    int c = static_cast<int>(m * p.endpoints * p.slots);
    Figures f = Sim(p, c).Run();
    best = std::max(best, f.busy_slot_s / f.slot_s);
    char label[32];
    std::snprintf(label, sizeof label, "fixed %d", c);
    Print(label, f, c);
  }
  Figures a = Sim(p, 0).Run();
  Print("auto", a, a.limit_sum / std::max(a.limit_samples, 1.0));
  std::printf("auto vs best fixed: %+.1f points\n", 100 * (a.busy_slot_s / a.slot_s - best));
  p.slow_down = true;
  Figures s = Sim(p, 0).Run();
  Print("auto+slow", s, s.limit_sum / std::max(s.limit_samples, 1.0));
  std::printf("servers at half speed after half the tasks: limit %d before, %d at the last dispatch\n",
              s.limit_before_slow, s.limit_end);
  return 0;
}
