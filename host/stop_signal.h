// A request to stop at the next point where the state can be saved: SLURM's warning before a
// job's time limit or its preemption (sbatch --signal=USR1@SECONDS) sends SIGUSR1, and the
// trainer, between two outer iterations, writes a checkpoint and exits kExitCheckpointed
// (workloads/train/trainer.cc; scripts/slurm/generic.sbatch requeues the job on that status).
// SIGTERM and SIGINT keep their meaning: stop now (records/run_record.cc leaves whole files).
#pragma once

namespace prunex {

// "Checkpointed, not done": sysexits.h's EX_TEMPFAIL, a temporary failure worth retrying.
inline constexpr int kExitCheckpointed = 75;

// SIGUSR1 sets the request from now on (once per process; later calls do nothing).
void install_stop_signal();
// Whether a SIGUSR1 has arrived since install_stop_signal().
bool stop_requested();

}  // namespace prunex
