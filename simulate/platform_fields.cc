#include "simulate/platform_fields.h"

#include "settings/run_fields.h"

namespace prunex::sim {

const std::vector<PlatformField>& platform_fields() {
  using C = PlatformSettings;
  static const std::vector<PlatformField> fields = {
      {"network-model", "NAME", "SimGrid network model: CM02, LV08, SMPI, IB",
       [](C& c, const std::string& v) {
         PRUNEX_USAGE(known_network_models().count(v), "unknown network model '", v,
                      "' (CM02, LV08, SMPI, IB)");
         c.network_model = v;
       },
       [](const C& c) { return nlohmann::json(c.network_model); }},
      {"fabric-routing", "R",
       "fat-tree uplinks: pooled (every flow leaving a leaf shares its uplink bundle) or ecmp "
       "(each flow hashed onto one uplink, --ecmp-seed)",
       [](C& c, const std::string& v) { c.fabric_routing = parse_fabric_routing(v); },
       [](const C& c) { return nlohmann::json(fabric_routing_name(c.fabric_routing)); }},
      fields::whole<C>("ecmp-seed", "N", "hash seed of --fabric-routing ecmp", &C::ecmp_seed, 0,
                       fields::kMaxCount),
      fields::boolean<C>(
          "nccl-protocols",
          "each collective in the NCCL protocol (LL, LL128, Simple) NCCL's tuning picks for "
          "its size: NCCL's latency of that protocol (base + per-step hardware latency, "
          "src/graph/tuning.cc) and its wire overhead (false: the routes' latencies and "
          "plain flows)",
          &C::nccl_protocols),
      fields::boolean<C>(
          "call-latency",
          "each collective call also pays NCCL's base latency of the protocol its tuning "
          "picks for the size (src/graph/tuning.cc baseLat: ring 6.6, 14, 8.4 us, tree 6.8, "
          "14, 8.4 for LL, LL128, Simple): kernel launch and protocol set-up, which the "
          "routes' latencies leave out (--nccl-protocols includes it; a calibrated op's "
          "fitted latency holds it)",
          &C::call_latency),
      fields::boolean<C>(
          "achieved-bandwidth",
          "links at their achieved bandwidth: the topology's intra.achieved_fraction and "
          "nic.achieved_fraction (published microbenchmarks) times the signalling rate "
          "(false: signalling rates)",
          &C::achieved_bandwidth),
      fields::zero_is_unset(fields::whole<C>(
          "nic-rails", "N",
          "what-if: NICs per node, each with the topology's NIC (or --nic-gbits); 0: the "
          "topology's",
          &C::nic_rails, 0, 64)),
      fields::zero_is_unset(fields::real<C>(
          "nic-gbits", "G",
          "what-if: each NIC's signalling rate in Gbit/s, the fabric's switch links at the same "
          "rate; 0: the topology's",
          &C::nic_gbits, 0, 1e6, false)),
      {"nic-transport", "T",
       "what-if: the NICs' transport, its hop latency and achieved fraction a preset's: rdma "
       "(puhti's HDR100 InfiniBand: NCCL's network hop, src/graph/tuning.cc; nccl-tests#29) or "
       "tcp (NCCL's sockets: cloud-v100-25gbe's below 50 Gbit/s, cloud-v100-100gbe's above; "
       "nccl-tests#82, #83, nccl#450); empty: the topology's own",
       [](C& c, const std::string& v) {
         if (!v.empty()) check_nic_transport(v);
         c.nic_transport = v;
       },
       [](const C& c) {
         return c.nic_transport.empty() ? nlohmann::json() : nlohmann::json(c.nic_transport);
       }},
      fields::zero_is_unset(fields::real<C>(
          "intra-gbs", "G",
          "what-if: each intra-node link's (NVLink, PCIe or switch port) GB/s per direction; 0: "
          "the topology's",
          &C::intra_gbs, 0, 1e6, false)),
      fields::text<C>("calibration", "FILE",
                      "calibration.json from prunex calibrate: its latencies, bandwidths, "
                      "compute and memory speeds replace the topology's",
                      &C::calibration),
      {"algo", "A",
       "collective algorithm: ring, tree (all-reduce: NCCL's tree, a chain in each node and a "
       "double binary tree over the nodes; broadcast: a binary tree; no all-gather), "
       "hierarchical, mpi (Open MPI's own choice per size), nccl (ring or tree per collective, "
       "whichever NCCL's tuning model, v2.25.1, predicts faster for its size and ranks, as "
       "NCCL picks); with --calibration, the algorithm its fits assume (ring or mpi)",
       [](C& c, const std::string& v) { c.algo = parse_algo(v); },
       [](const C& c) { return nlohmann::json(algo_name(c.algo)); }},
  };
  return fields;
}

}  // namespace prunex::sim
