// The short terminal summary printed after train, simulate and sweep runs: phases with
// seconds and share of the iteration, bytes per tier, accuracy, and where outputs went.
#pragma once

#include <cstdio>
#include <string>

#include "records/run_record.h"

namespace prunex {

void print_run_summary(std::FILE* f, const RunRecord& run, const std::string& out_dir);

}  // namespace prunex
