#include "backends/mpi/mpi_env.h"

#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "engine/error.h"

namespace prunex {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  throw std::runtime_error(detail::concat(file, ":", line, ": ", call, " failed: ",
                                          len > 0 ? std::string(text, len) : "MPI error code ",
                                          len > 0 ? std::string() : std::to_string(code)));
}

bool MpiEnv::active() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

MpiEnv::MpiEnv(int* argc, char*** argv) {
  int initialized = 0, finalized = 0;
  PRUNEX_MPI_CHECK(MPI_Initialized(&initialized));
  PRUNEX_MPI_CHECK(MPI_Finalized(&finalized));
  PRUNEX_CHECK(!finalized, "MPI was already finalised in this process; it cannot restart");
  if (!initialized) {
    for (const auto& d : kMpiDefaults) setenv(d.name, d.value, /*overwrite=*/0);
    int provided = 0;
    PRUNEX_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    owns_ = true;
    PRUNEX_CHECK(provided >= MPI_THREAD_FUNNELED, "MPI provides thread level ", provided);
  }
  PRUNEX_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

MpiEnv::~MpiEnv() {
  if (owns_ && active()) MPI_Finalize();
}

int MpiEnv::world_rank() const {
  int r = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
  return r;
}

int MpiEnv::world_size() const {
  int n = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
  return n;
}

MpiComm::MpiComm(MpiComm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}

MpiComm& MpiComm::operator=(MpiComm&& other) noexcept {
  if (this != &other) {
    reset();
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
  }
  return *this;
}

void MpiComm::reset() noexcept {
  if (comm_ != MPI_COMM_NULL && comm_ != MPI_COMM_WORLD && comm_ != MPI_COMM_SELF &&
      MpiEnv::active())
    MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

MpiComm MpiComm::dup(MPI_Comm parent) {
  MPI_Comm c = MPI_COMM_NULL;
  PRUNEX_MPI_CHECK(MPI_Comm_dup(parent, &c));
  return MpiComm(c);
}

MpiComm MpiComm::split(MPI_Comm parent, int color, int key) {
  MPI_Comm c = MPI_COMM_NULL;
  PRUNEX_MPI_CHECK(MPI_Comm_split(parent, color, key, &c));
  return MpiComm(c);
}

MpiComm MpiComm::split_shared(MPI_Comm parent) {
  int key = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_rank(parent, &key));
  MPI_Comm c = MPI_COMM_NULL;
  PRUNEX_MPI_CHECK(MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &c));
  return MpiComm(c);
}

int MpiComm::rank() const {
  PRUNEX_CHECK(comm_ != MPI_COMM_NULL, "rank of a null communicator");
  int r = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_rank(comm_, &r));
  return r;
}

int MpiComm::size() const {
  PRUNEX_CHECK(comm_ != MPI_COMM_NULL, "size of a null communicator");
  int n = 0;
  PRUNEX_MPI_CHECK(MPI_Comm_size(comm_, &n));
  return n;
}

MPI_Datatype mpi_datatype(DType t) {
  switch (t) {
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::i32:
      return MPI_INT32_T;
    case DType::i64:
      return MPI_INT64_T;
    case DType::u8:
      return MPI_UNSIGNED_CHAR;
    case DType::i8:
      return MPI_INT8_T;
    case DType::bf16:
    case DType::f16:
      return MPI_UINT16_T;  // summed by the user ops of mpi_communicator.cc
  }
  throw std::logic_error("unknown DType");
}

}  // namespace prunex
