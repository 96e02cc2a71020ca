// The forward pass's density cache: for every frame, the senones evaluated at that frame with
// their topn scaled densities (exp(log density - the frame's scale)), density indices and output
// probability sum_k w_k den_k. The backward pass reads the same values back frame by frame.
//
// A frame is built by Request (each local senone at most once per frame), then FinishFrame
// evaluates the requested senones together (DensityKernel::EvaluateMany), scales the frame's
// densities by (max log density - 10), as SphinxTrain's bw does, and closes the frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/uninitialized_vector.h"
#include "forward_backward/density_kernel.h"
#include "model/acoustic_model.h"

namespace pstrain {

class FrameDensities {
 public:
  // Before each utterance: the local -> global senone map (SentenceHmm::senones) and the model
  // (its topn fixes the entries per senone for the whole utterance).
  void Reset(const std::vector<std::uint32_t>& senones, const AcousticModel& model);

  // Adds local senone `local` to the frame being built, unless already there. Every request of a
  // frame gives the same x (the frame's features).
  void Request(std::uint32_t local, const float* x) { RequestMany(&local, 1, x); }
  // Request(locals[i], x) for i = 0 .. n - 1 in that order, in one loop (the alpha pass asks for a
  // frame's senones all at once; one call a request stored and reloaded the arrays' sizes each time).
  void RequestMany(const std::uint32_t* locals, std::size_t n, const float* x);
  // Evaluates, scales and closes the frame being built; returns its density log-scale.
  double FinishFrame(DensityKernel& kernel, const AcousticModel& model);

  // Entry lookup by local senone: after FinishFrame, of the frame it closed; after SetFrame(t), of
  // frame t. Only a senone evaluated at that frame may be looked up (any other still maps to an
  // entry of another frame, or to none): nothing is cleared between frames.
  void SetFrame(std::uint32_t t);
  std::size_t Entry(std::uint32_t local) const { return static_cast<std::size_t>(local_entry_[local]); }
  double Op(std::uint32_t local) const { return op_[Entry(local)]; }
  double Value(std::size_t entry, std::uint32_t kk) const { return value_[entry * topn_ + kk]; }
  std::uint32_t Index(std::size_t entry, std::uint32_t kk) const { return all_ ? kk : index_[entry * topn_ + kk]; }
  // Entries of the first frame (its first entry is 0).
  double FirstOp() const { return op_[0]; }

 private:
  const std::vector<std::uint32_t>* senones_ = nullptr;
  std::uint32_t topn_ = 0;
  bool all_ = false;                    // topn = all densities: entry kk is density kk, index_ stays empty
  std::vector<std::size_t> begin_;      // frame -> first entry (closed frames + 1)
  UninitializedVector<std::uint32_t> local_;  // entry -> local senone: the first n_entries_ are used
  std::size_t n_entries_ = 0;
  UninitializedVector<double> op_;      // entry -> output probability (written before read)
  UninitializedVector<double> value_;   // entry * topn -> scaled density (written before read)
  std::vector<std::uint32_t> index_;    // entry * topn -> density index (topn < all only)
  const float* pending_x_ = nullptr;    // the open frame's features
  // The open frame's senones, in entry order: the first n_pending_ (room for every local senone).
  UninitializedVector<std::uint32_t> pending_senones_;
  std::size_t n_pending_ = 0;
  UninitializedVector<double> pending_log_;  // the open frame's log densities (entry-major)
  std::vector<std::int32_t> local_entry_;  // local senone -> its entry (-1 before its first)
  std::int32_t open_first_ = 0;            // the first entry of the frame being built
};

}  // namespace pstrain
