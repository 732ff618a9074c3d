#include "topologies/topology_import.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "engine/error.h"
#include "topologies/topology_io.h"

namespace prunex {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

bool is_gpu(const std::string& name) {
  return name.size() > 3 && name.compare(0, 3, "GPU") == 0 &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const std::map<std::string, int> kDistance = {{"PIX", 0},  {"PXB", 1}, {"PHB", 2},
                                              {"NODE", 3}, {"SOC", 4}, {"SYS", 4}};

}  // namespace

TopoMatrix parse_topo_matrix(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::vector<std::string> columns;
  std::map<std::string, std::vector<std::string>> rows;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto w = words(line);
    if (w.empty()) continue;
    if (w[0] == "Legend:" || w[0] == "NIC") break;  // the legend ends the matrix
    if (columns.empty()) {
      if (w[0] != "GPU0") continue;  // text before the header
      for (const auto& c : w) {
        if (c == "CPU" || c == "NUMA" || (c == "GPU" && &c != &w[0])) break;
        PRUNEX_USAGE(std::find(columns.begin(), columns.end(), c) == columns.end(), origin,
                     ": line ", number, ": the header names ", c, " twice");
        columns.push_back(c);
      }
      continue;
    }
    if (std::find(columns.begin(), columns.end(), w[0]) == columns.end()) continue;
    PRUNEX_USAGE(w.size() > columns.size(), origin, ": line ", number, ": row ", w[0], " has ",
                 w.size() - 1, " cells, the header ", columns.size());
    PRUNEX_USAGE(!rows.count(w[0]), origin, ": line ", number, ": a second row for ", w[0]);
    rows[w[0]] = std::vector<std::string>(w.begin() + 1, w.begin() + 1 + columns.size());
  }
  PRUNEX_USAGE(!columns.empty(), origin,
               ": no nvidia-smi topo -m matrix (a header line starting with GPU0)");
  TopoMatrix m;
  std::vector<int> gpu_col, nic_col;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    (is_gpu(columns[c]) ? m.gpus : m.nics).push_back(columns[c]);
    (is_gpu(columns[c]) ? gpu_col : nic_col).push_back(static_cast<int>(c));
  }
  for (const auto& g : m.gpus) {
    auto row = rows.find(g);
    PRUNEX_USAGE(row != rows.end(), origin, ": no row for ", g);
    std::vector<int> links, dist;
    for (int c : gpu_col) {
      const std::string& cell = row->second[c];
      if (cell == "X") {
        links.push_back(0);
      } else if (cell.size() > 2 && cell.compare(0, 2, "NV") == 0) {
        // NV# (# bonded NVLinks, 1 to 99): every character after NV a digit.
        const std::string count = cell.substr(2);
        const bool digits =
            count.size() <= 2 && std::all_of(count.begin(), count.end(), [](char ch) {
              return std::isdigit(static_cast<unsigned char>(ch));
            });
        PRUNEX_USAGE(digits && std::stoi(count) >= 1, origin, ": ", g, " to ", columns[c], ": '",
                     cell, "' is not NV<count> (1 to 99 NVLinks)");
        links.push_back(std::stoi(count));
      } else {
        PRUNEX_USAGE(kDistance.count(cell), origin, ": ", g, " to ", columns[c], ": unknown '",
                     cell, "' (NV#, PIX, PXB, PHB, NODE, SYS or X)");
        links.push_back(0);
      }
    }
    for (int c : nic_col) {
      const std::string& cell = row->second[c];
      PRUNEX_USAGE(kDistance.count(cell), origin, ": ", g, " to ", columns[c], ": unknown '", cell,
                   "' (PIX, PXB, PHB, NODE or SYS)");
      dist.push_back(kDistance.at(cell));
    }
    m.nvlinks.push_back(links);
    m.nic_distance.push_back(dist);
  }
  return m;
}

Topology import_node(const TopoMatrix& m, const std::string& origin, const Topology& base,
                     const std::string& name) {
  const int n = static_cast<int>(m.gpus.size());
  PRUNEX_USAGE(n >= 1, origin, ": the matrix has no GPU");
  Topology t = base;
  t.name = name;
  const std::string from = "nvidia-smi topo -m (" + origin + ")";
  t.description = "imported from " + from + " on base " + base.name + ": " + base.description;
  t.gpus_per_node = n;
  t.sources["gpus_per_node"] = from + ": " + std::to_string(n) + " GPUs";
  bool any_nvlink = false;
  for (const auto& row : m.nvlinks)
    any_nvlink |= std::any_of(row.begin(), row.end(), [](int x) { return x > 0; });
  if (n > 1) {
    PRUNEX_USAGE(any_nvlink, origin,
                 ": no NVLink between the GPUs (a PCIe node): write its intra section by hand");
    PRUNEX_USAGE(base.intra.kind == IntraKind::nvlink_pairs, "--base ", base.name,
                 " describes its GPUs by intra.kind ",
                 base.intra.kind == IntraKind::nvswitch ? "nvswitch" : "other than nvlink_pairs",
                 "; the matrix needs a base whose intra.bandwidth_gbs is one NVLink");
    t.intra.links = m.nvlinks;
    t.sources["intra.links"] = from + ": NV# of each GPU pair";
    t.sources.erase("intra.links_per_pair");
    t.intra.links_per_pair = ring_links(m.nvlinks);
  }
  if (!m.nics.empty()) {
    // Each GPU's nearest NIC (ties: the first column); NICs nearest to no GPU are left out.
    std::vector<std::vector<int>> by_nic(m.nics.size());
    for (int g = 0; g < n; ++g) {
      const auto& d = m.nic_distance[g];
      by_nic[std::min_element(d.begin(), d.end()) - d.begin()].push_back(g);
    }
    std::vector<std::vector<int>> affinity;
    for (auto& list : by_nic)
      if (!list.empty()) affinity.push_back(list);
    std::sort(affinity.begin(), affinity.end());
    t.nic.rails = static_cast<int>(affinity.size());
    t.nic.affinity = affinity;
    t.sources["nic.rails"] = from + ": NICs nearest to a GPU";
    t.sources["nic.affinity"] = from + ": each GPU's nearest NIC (PIX, PXB, PHB, NODE, SYS)";
  }
  check_topology(t, name);
  return t;
}

}  // namespace prunex
