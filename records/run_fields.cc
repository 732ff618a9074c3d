#include "records/run_fields.h"

namespace prunex::fields {

bool parse_bool(const std::string& name, const std::string& v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw UsageError("--" + name + " must be true or false, got '" + v + "'");
}

}  // namespace prunex::fields
