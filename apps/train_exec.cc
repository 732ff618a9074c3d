// `prunex train` in the prunex executable: the options were parsed and checked (main.cc), the
// training itself runs in prunex-train beside this executable, which replaces this process
// (same arguments, environment and process id: mpirun, srun and signals see no difference).
// prunex stays free of LibTorch, so its other commands start in a tenth of the time. Before
// it does, each rank checks what the settings alone decide (check_train_settings): a typo is
// refused in one line (rank 0's, main.cc) before any rank loads LibTorch or starts MPI.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/train/train_main.h"
#include "host/process.h"

namespace prunex::cli {

int train_main(const Args& args) {
  if (args.flag("check")) return train_check_main(args);
  check_train_args(args);
  const std::filesystem::path self = self_executable();
  const std::string trainer = (self.parent_path() / "prunex-train").string();
  std::vector<std::string> argv = {trainer};
  for (const auto& w : command_words()) argv.push_back(w);
  try {
    replace_process(argv);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " (the training runs in prunex-train, which scripts/build.sh builds "
                             "beside prunex; keep the two together)");
  }
}

}  // namespace prunex::cli
