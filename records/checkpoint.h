// Checkpoints of a live run (`prunex train --checkpoint-every K`): one file of named sections
// per rank and a manifest, in a folder per iteration:
//
//   DIR/LATEST                       "iter-00000004": the newest complete checkpoint
//   DIR/iter-00000004/manifest.json  iteration, config, grouping, the rank files' sizes and
//                                    CRC-32s, the run record so far
//   DIR/iter-00000004/rank-00000.ckpt ...
//
// Every file is written atomically (records/run_record.h: unique temporary name, fsync,
// rename). A checkpoint becomes the newest only when its manifest and then LATEST are in
// place; the folders of older checkpoints are removed after that, so a crash at any moment
// leaves the previous complete checkpoint readable.
//
// A rank file: "PRUNEXCKPT1\n", u32 section count, per section (u32 name length, name, u64
// data length, data), then the CRC-32 (zlib's) of all bytes before it; integers little
// endian. decode_sections() checks every length against what is left, so a truncated or
// hostile file is a UsageError, never an overread or an allocation beyond its own size.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/state_sections.h"

namespace prunex {

uint32_t crc32_of(std::string_view bytes);

std::string encode_sections(const StateSections& sections);
// origin names the file in errors ("checkpoint x/rank-00001.ckpt: truncated").
StateSections decode_sections(std::string_view bytes, const std::string& origin);

struct CheckpointFileInfo {
  int64_t bytes = 0;
  uint32_t crc32 = 0;  // of the file less its trailer (= the trailer's value)
};

// DIR/iter-<k>/rank-<r>.ckpt, written atomically; returns its size and checksum for the
// manifest.
CheckpointFileInfo write_rank_checkpoint(const std::string& dir, int iteration, int rank,
                                         const StateSections& sections);

// Rank 0, after every rank's file is written: the manifest (the caller's JSON, with "files"
// added from infos, index = rank), then LATEST, then the older checkpoint folders go.
void publish_checkpoint(const std::string& dir, int iteration, nlohmann::json manifest,
                        const std::vector<CheckpointFileInfo>& infos);

struct CheckpointManifest {
  std::string folder;  // DIR/iter-<k>
  int iteration = 0;
  nlohmann::json json;
};

// The newest complete checkpoint in dir; UsageError naming the problem (no LATEST, a
// manifest that is missing or malformed).
CheckpointManifest read_latest_checkpoint(const std::string& dir);
// Rank r's sections, checked against the manifest's size and CRC-32 and its own trailer.
StateSections read_rank_checkpoint(const CheckpointManifest& m, int rank);
// Rank r's file is there at the size the manifest records (not read: the CRC-32 is checked
// by the rank that reads it); UsageError naming it otherwise, as read_rank_checkpoint would.
void check_rank_file_present(const CheckpointManifest& m, int rank);

}  // namespace prunex
