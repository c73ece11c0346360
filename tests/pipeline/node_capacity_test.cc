#include "seragen/pipeline/node_capacity.h"

#include <catch2/catch.hpp>

namespace seragen::pipeline {

TEST_CASE("the node's bound is its scarcest resource with headroom", "[pipeline][auto_concurrency]") {
  TaskNeeds needs;
  needs.memory_bytes = 1LL << 30;
  needs.disk_bytes = 2LL << 30;
  needs.tasks_per_core = 16;
  NodeResources node{40LL << 30, 1000LL << 30, 8};  // 32 by memory, 400 by disk, 128 by CPU
  NodeBound b = TasksTheNodeHolds(node, needs);
  CHECK(b.tasks == 32);
  CHECK(b.bound_by == "memory");
  CHECK(b.detail == "40.0 GiB available, 1.0 GiB per task");
  node.free_disk_bytes = 20LL << 30;  // 8 copies fit with a fifth kept free
  CHECK(TasksTheNodeHolds(node, needs).tasks == 8);
  CHECK(TasksTheNodeHolds(node, needs).bound_by == "disk");
  node = {-1, -1, 2};  // unknown memory and disk: the cores decide
  CHECK(TasksTheNodeHolds(node, needs).tasks == 32);
  CHECK(TasksTheNodeHolds(node, needs).bound_by == "cpu");
  CHECK(TasksTheNodeHolds(node, needs, 10).bound_by == "limit");
  node = {0, 0, 1};  // nothing free: still one task
  CHECK(TasksTheNodeHolds(node, needs).tasks == 1);
}

TEST_CASE("the kernel's memory and CPU pressure files are read strictly", "[pipeline][auto_concurrency]") {
  CHECK(ParseMemAvailable("MemTotal:       16314444 kB\nMemFree: 1 kB\nMemAvailable:   8000000 kB\n") ==
        8000000LL * 1024);
  CHECK(!ParseMemAvailable("MemTotal: 5 kB\n"));
  CHECK(!ParseMemAvailable("XMemAvailable: 5 kB\n"));
  CHECK(!ParseMemAvailable("MemAvailable: lots\n"));
  CHECK(ParseCpuPressure("some avg10=12.50 avg60=3.00 avg300=1.00 total=1\nfull avg10=0.00\n") == Approx(0.125));
  CHECK(!ParseCpuPressure("full avg10=1.00\n"));
  CHECK(!ParseCpuPressure("some avg60=1.00\n"));
  CHECK(CpuPressureFromLoadavg("4.00 1.00 1.00 3/200 1234\n", 2) == Approx(0.5));
  CHECK(CpuPressureFromLoadavg("1.00 1.00 1.00 1/200 1234\n", 2) == 0);
  CHECK(!CpuPressureFromLoadavg("", 2));
}

}  // namespace seragen::pipeline
