// Package hotcfg builds the hot control-flow graph of a program from batches of
// consecutive program counters (bursts), the way a sampling profiler or a process
// virtual machine sees them, and measures how close such a graph is to the exact one.
//
// A Batch is a run of consecutive PCs of one thread. Builders consume batches one at a
// time (AddBatch) and can be asked for their current Graph at any moment, so they run
// online, while a program is being sampled. Two builders are provided:
//
//   - GFC, GFCGaussiano from O. O. Napoli's bachelor's thesis (UTFPR Campo Mourão, 2015,
//     advised by J. H. Foleiss; docs/methods.md): window means, a batch σ threshold,
//     self-organising bins and the recursive buildCFGR, with its four parameters
//     exposed;
//   - Bursts, fragprof's own builder, which takes every branch followed by the next PC
//     in a burst as an observed transition, completes blocks by decoding the code
//     around the observed PCs, and estimates each edge's rate with a standard error;
//     with Infer it also adds, marked Inferred, the edges the code implies (the static
//     successors of every executed branch).
//
// Trace builds the exact dynamic graph from a complete trace (runs of straight-line
// instructions and the transfers between them); Compare measures a sampled graph
// against it as the thesis does (similarity = |G ∩ H| / |H| over the hot edges of H).
//
// Graphs are keyed by machine addresses. The batches file format (Reader, Writer) is
// documented in docs/batches.md.
//
// The package is public so that VM authors can feed it their own batches.
package hotcfg
