//===- DocumentSeparator.h - Shards whose documents the spec can find -*- C++
//-*-===//
//
// A document-masked spec attends within documents, each starting with its
// `model.attention.bos_token`. Shards say which id starts their documents
// through the tokenizer record beside them (256 for gptc's byte tokenizer,
// <|endoftext|> of a BPE vocabulary: runtime/TokenizerRecord.h); shards
// without a record (FineWeb's) must at least hold the spec's id. A spec
// whose bos_token is another id would cut documents wherever that id
// occurs (a BPE merge such as "he") and train in silence: this check says
// so before the first step.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DOCUMENTSEPARATOR_H
#define GPTC_RUNTIME_DOCUMENTSEPARATOR_H

#include <cstdint>
#include <string>

namespace gptc {
namespace runtime {

/// The id that starts the documents of the shards beside `shardPath`,
/// from their tokenizer record: 256 (bytes), <|endoftext|> (BPE), or -1
/// (no record, or its vocabulary cannot be read). `what` describes it.
int64_t recordedSeparator(const std::string &shardPath, std::string &what);

/// Whether `bosToken` starts the documents of the training shards whose
/// first is `firstShard`. False with one line naming the record or shard,
/// what each id counts to in the shard's first tokens, and the fix.
bool checkDocumentSeparator(const std::string &firstShard, int64_t bosToken,
                            std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_DOCUMENTSEPARATOR_H
