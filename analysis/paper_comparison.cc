#include "analysis/paper_comparison.h"

#include "analysis/run_quantities.h"
#include "records/json_file.h"

namespace prunex {

Doc read_doc(const std::string& path) {
  return {read_json_file(path, "run record"), path};
}

std::string sections_markdown(const std::vector<Section>& sections) {
  std::string s;
  for (const auto& sec : sections) {
    s += "## " + sec.title + "\n\n";
    if (!sec.intro.empty()) s += sec.intro + "\n";
    s += rows_markdown(sec.rows, sec.figure) + "\n";
    if (!sec.text.empty()) s += sec.text + "\n";
  }
  return s;
}

}  // namespace prunex
