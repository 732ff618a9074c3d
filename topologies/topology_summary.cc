#include "topologies/topology_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/bisection.h"
#include "topologies/topology_names.h"

namespace prunex {
namespace {

std::string gbs(double Bps) {
  return fmt::format("{:g} GB/s", Bps / 1e9);
}
std::string gbits(double Bps) {
  return fmt::format("{:g} Gbit/s", Bps * 8 / 1e9);
}
std::string tflops(double flops) {
  return fmt::format("{:g} TFLOP/s", flops / 1e12);
}
std::string us(double s) {
  return fmt::format("{:g} us", s * 1e6);
}

std::string fabric_text(const Topology& t) {
  const Fabric& f = t.fabric;
  std::string link =
      fmt::format("links {}, {} per hop", gbits(f.link.bandwidth_Bps), us(f.link.latency_s));
  switch (f.kind) {
    case FabricKind::star:
      return fmt::format("star (one switch), ports {}, {} per hop", gbits(f.link.bandwidth_Bps),
                         us(f.link.latency_s));
    case FabricKind::fat_tree:
      return fmt::format("fat_tree, {} levels, radix {}, {}, {}", f.levels, f.radix,
                         f.blocking == 1 ? std::string("non-blocking")
                                         : fmt::format("{:g}:1 blocking", f.blocking),
                         link);
    case FabricKind::dragonfly:
      return fmt::format(
          "dragonfly, {} groups x {} routers, {} global links per router ({:g} "
          "global links), {}",
          f.groups, f.radix, f.global_links_per_router, dragonfly_global_links(f), link);
  }
  return "?";
}

std::string intra_text(const Topology& t) {
  const IntraNode& in = t.intra;
  std::string per_gpu = gbs(intra_gpu_bandwidth_Bps(t)) + " per GPU";
  if (in.kind == IntraKind::nvlink_pairs && !in.links.empty()) {
    int lo = 1 << 30, hi = 0;
    for (std::size_t a = 0; a < in.links.size(); ++a)
      for (std::size_t b = a + 1; b < in.links[a].size(); ++b) {
        lo = std::min(lo, in.links[a][b]);
        hi = std::max(hi, in.links[a][b]);
      }
    return fmt::format(
        "nvlink_pairs from a matrix ({} to {} links per pair), a ring gets {} link(s) of {} per "
        "hop (every pair modeled so), {}, {}",
        lo, hi, in.links_per_pair, gbs(in.link.bandwidth_Bps), per_gpu, us(in.link.latency_s));
  }
  if (in.kind == IntraKind::nvlink_pairs)
    return fmt::format("nvlink_pairs, {} links per pair x {} = {} per pair, {}, {}",
                       in.links_per_pair, gbs(in.link.bandwidth_Bps),
                       gbs(in.links_per_pair * in.link.bandwidth_Bps), per_gpu,
                       us(in.link.latency_s));
  return fmt::format("{}, {}, {}", intra_kind_name(in.kind), per_gpu, us(in.link.latency_s));
}

std::string bisection_text(const Topology& t) {
  if (t.nodes < 2) return "n/a (one node)";
  const double b = bisection_bandwidth_Bps(t);
  return fmt::format("{} ({}) per direction", gbs(b), gbits(b));
}

}  // namespace

std::string topology_summary_line(const Topology& t) {
  return fmt::format(
      "{}: {} nodes x {} {} = {} GPUs; intra {} {} per GPU; NIC {} x {}; {}; "
      "bisection {}",
      t.name, t.nodes, t.gpus_per_node, t.gpu.name, t.gpus(), intra_kind_name(t.intra.kind),
      gbs(intra_gpu_bandwidth_Bps(t)), t.nic.rails, gbits(t.nic.link.bandwidth_Bps),
      fabric_kind_name(t.fabric.kind),
      t.nodes < 2 ? std::string("n/a") : gbs(bisection_bandwidth_Bps(t)));
}

std::string describe_topology(const Topology& t) {
  std::string s = fmt::format("topology {}\n", t.name);
  if (!t.description.empty()) s += fmt::format("  {}\n", t.description);
  auto row = [&](const char* label, const std::string& text) {
    s += fmt::format("  {:<12} {}\n", label, text);
  };
  row("nodes", fmt::format("{} x {} GPUs = {} GPUs", t.nodes, t.gpus_per_node, t.gpus()));
  row("gpu", fmt::format("{}: fp32 {} peak, {} effective (efficiency {:g}); fp16 {}; memory {}",
                         t.gpu.name, tflops(t.gpu.fp32_flops), tflops(t.gpu.effective_flops()),
                         t.gpu.efficiency, tflops(t.gpu.fp16_flops), gbs(t.gpu.mem_bandwidth_Bps)));
  // The precisions simulate --precision can run here (topologies/topology_io.h apply_precision).
  std::string precisions;
  if (t.gpu.tf32_flops > 0)
    precisions += fmt::format(
        "tf32 {} peak{}", tflops(t.gpu.tf32_flops),
        t.gpu.tf32_efficiency > 0
            ? fmt::format(", {} effective", tflops(t.gpu.tf32_flops * t.gpu.tf32_efficiency))
            : std::string(" (no efficiency stated)"));
  if (t.gpu.amp_efficiency > 0)
    precisions += fmt::format("{}amp {} effective", precisions.empty() ? "" : "; ",
                              tflops(t.gpu.fp16_flops * t.gpu.amp_efficiency));
  if (!precisions.empty()) row("precisions", precisions);
  auto achieved = [](double f, const std::string& rate) {
    return f == 1 ? std::string() : fmt::format("; achieved {:g} of signalling = {}", f, rate);
  };
  row("intra-node", intra_text(t) + achieved(t.intra.achieved,
                                             gbs(t.intra.achieved * t.intra.link.bandwidth_Bps) +
                                                 " per link or port"));
  row("nic",
      fmt::format("{} rails x {} = {} per node, {}", t.nic.rails, gbits(t.nic.link.bandwidth_Bps),
                  gbs(t.node_injection_Bps()), us(t.nic.link.latency_s)) +
          achieved(t.nic.achieved, gbs(t.nic.achieved * t.nic.link.bandwidth_Bps) + " per rail"));
  row("fabric", fabric_text(t));
  row("bisection", bisection_text(t));
  if (!t.sources.empty()) {
    s += "  sources:\n";
    for (const auto& [field, source] : t.sources)
      s += fmt::format("    {:<30} {}\n", field, source);
  }
  return s;
}

}  // namespace prunex
