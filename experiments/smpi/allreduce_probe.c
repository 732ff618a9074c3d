/* MPI_Allreduce of S bytes (float sum), timed per call; built with smpicc and run by smpirun
 * on the PruneX platform (platform_plugin.cc). Under SMPI, MPI_Wtime is simulated time.
 *   allreduce_probe BYTES [CALLS]
 * Rank 0 prints one line per call: "allreduce bytes=S ranks=N call=i seconds=T", T from the
 * moment the last rank enters MPI_Allreduce (after a barrier, whose exits are skewed by a
 * latency or so) to the moment the last rank returns: the span prunex's flows model. Buffers come
 * from SMPI_SHARED_MALLOC (every rank maps the same pages: the data is garbage, the timing
 * is not), so thousands of ranks of a 232 MB all-reduce fit in memory. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef SMPI_SHARED_MALLOC
#define SMPI_SHARED_MALLOC(n) malloc(n)
#define SMPI_SHARED_FREE(p) free(p)
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const long long bytes = argc > 1 ? atoll(argv[1]) : 0;
  const int calls = argc > 2 ? atoi(argv[2]) : 1;
  if (bytes <= 0 || bytes % 4 != 0 || bytes / 4 > 2147483647LL || calls < 1) {
    if (rank == 0) fprintf(stderr, "usage: allreduce_probe BYTES(>0, multiple of 4) [CALLS>=1]\n");
    MPI_Finalize();
    return 2;
  }
  const int count = (int)(bytes / 4);
  float* send = (float*)SMPI_SHARED_MALLOC((size_t)bytes);
  float* recv = (float*)SMPI_SHARED_MALLOC((size_t)bytes);
  for (int i = 0; i < calls; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double t[2] = {t0, MPI_Wtime()};
    double last[2] = {0, 0};
    MPI_Reduce(t, last, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("allreduce bytes=%lld ranks=%d call=%d seconds=%.9e\n", bytes, ranks, i,
             last[1] - last[0]);
  }
  SMPI_SHARED_FREE(send);
  SMPI_SHARED_FREE(recv);
  MPI_Finalize();
  return 0;
}
