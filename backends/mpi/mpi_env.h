// MPI as RAII: the library's lifetime (MpiEnv), communicators (MpiComm), and a check macro
// that turns an MPI return code into an exception with file, line and MPI's own message.
#pragma once

#include <mpi.h>

#include <string>

#include "engine/types.h"

namespace prunex {

// Throws std::runtime_error "file:line: call failed: <MPI error string>".
[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

}  // namespace prunex

#define PRUNEX_MPI_CHECK(call)                                              \
  do {                                                                      \
    const int prunex_mpi_rc_ = (call);                                      \
    if (prunex_mpi_rc_ != MPI_SUCCESS)                                      \
      ::prunex::throw_mpi_error(prunex_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)

namespace prunex {

// Open MPI settings the toolkit starts MPI with unless the person set them (an OMPI_MCA_
// variable, mpirun --mca). The non-blocking all-reduce of the bucketed
// strategies runs as a ring (libnbc picks its binomial reduce-then-broadcast for every
// in-place call, 2 log2(p) full-buffer transfers in a row), and TCP messages up to 512 KiB go
// eagerly (at the default 64 KiB, each ring chunk of a few hundred KB waited a round trip
// for its rendezvous). Gloo and NCCL run rings for the same reason.
struct MpiDefault {
  const char* name;
  const char* value;
};
inline constexpr MpiDefault kMpiDefaults[] = {
    {"OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1"},  // 1: ring
    {"OMPI_MCA_btl_tcp_eager_limit", "524288"},
    {"OMPI_MCA_btl_tcp_rndv_eager_limit", "524288"},
};

// Initialises MPI (MPI_THREAD_FUNNELED: only the main thread calls MPI) unless it already is,
// with kMpiDefaults where the environment has no value of its own, and finalises it on
// destruction only if this guard initialised it, so guards can nest.
// MPI_COMM_WORLD gets MPI_ERRORS_RETURN, so failures reach PRUNEX_MPI_CHECK instead of
// aborting the job; communicators split from it inherit that handler.
class MpiEnv {
 public:
  explicit MpiEnv(int* argc = nullptr, char*** argv = nullptr);
  ~MpiEnv();
  MpiEnv(const MpiEnv&) = delete;
  MpiEnv& operator=(const MpiEnv&) = delete;

  static bool active();  // initialised and not yet finalised
  int world_rank() const;
  int world_size() const;

 private:
  bool owns_ = false;
};

// Owns an MPI_Comm and frees it on destruction (never MPI_COMM_WORLD/SELF, never after
// MPI_Finalize). Null (MPI_COMM_NULL) for a rank outside a split's colour.
class MpiComm {
 public:
  MpiComm() = default;
  ~MpiComm() { reset(); }
  MpiComm(MpiComm&& other) noexcept;
  MpiComm& operator=(MpiComm&& other) noexcept;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  static MpiComm dup(MPI_Comm parent);
  // color MPI_UNDEFINED gives a null MpiComm on that rank.
  static MpiComm split(MPI_Comm parent, int color, int key);
  // The ranks of parent that share memory (one host), ordered by their rank in parent.
  static MpiComm split_shared(MPI_Comm parent);

  MPI_Comm get() const { return comm_; }
  explicit operator bool() const { return comm_ != MPI_COMM_NULL; }
  int rank() const;
  int size() const;

 private:
  explicit MpiComm(MPI_Comm comm) : comm_(comm) {}
  void reset() noexcept;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The MPI datatype of a DType (u8 is MPI_UNSIGNED_CHAR, which MPI_BOR accepts).
MPI_Datatype mpi_datatype(DType t);

}  // namespace prunex
