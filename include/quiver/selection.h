// Take, filter and concatenate for arrays of any type: the row selection
// that tables, chunked columns and record batches are built on.
//
// All three copy the rows they pick into fresh buffers, except where a
// result is one run of consecutive rows of one input: that comes back as a
// zero-copy slice. Every input is read row by row with each offset, view
// and dictionary index it uses checked against its buffers, whatever level
// it was validated at, so a hostile array yields an error, not a read out
// of bounds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quiver/array.h"
#include "quiver/row_mask.h"
#include "quiver/status.h"

namespace quiver {

// The rows of `arrays`, in order, as one array. Every array must have the
// same type (TypeError naming the first that differs). One array comes back
// as it is. Dictionary arrays whose dictionaries are not all equal get one
// dictionary, the inputs' dictionaries joined with each repeated value kept
// once (values of fixed width, binary and utf8, as pyarrow unifies them),
// and remapped indices (Invalid if an index does not fit the index type).
// Take and Filter join dictionaries so too. Offsets that
// outgrow int32 give Invalid naming the large_ type to use.
Result<ArrayDataPtr> Concatenate(std::span<const ArrayDataPtr> arrays);

// Rows `indices` of `data`, in that order (repeats allowed). An index
// outside [0, length) is an IndexError naming it and its position.
Result<ArrayDataPtr> Take(const ArrayDataPtr& data, std::span<const int64_t> indices);

// Take, into fresh buffers whatever the rows: where Take hands a run of
// consecutive rows back as a zero-copy slice of `data`, this copies them.
// For a caller whose `data` holds bytes that must not outlive the call or
// be reachable through the result (a buffer decoded only where the rows
// lie, a large buffer of which a few rows are kept).
Result<ArrayDataPtr> TakeCopy(const ArrayDataPtr& data, std::span<const int64_t> indices);

// The rows of `data` whose mask byte is non-zero, in order. A mask of
// another length is Invalid. The bytes are packed into a RowMask first
// (read once); a caller filtering several arrays by one mask packs it
// once and passes the RowMask.
Result<ArrayDataPtr> Filter(const ArrayDataPtr& data, std::span<const uint8_t> mask);
Result<ArrayDataPtr> Filter(const ArrayDataPtr& data, const RowMask& mask);

// A boolean array (bool, or the bool8 extension) as the byte mask Filter
// takes: 1 where the slot is true, 0 where it is false or null, so a null
// selects nothing (pyarrow's default, null_selection_behavior="drop").
// The chunks of a chunked mask follow one another. TypeError naming the
// chunk for another type; Invalid for buffers too short for the slots
// (checked whatever level the mask was validated at).
Result<std::vector<uint8_t>> FilterMask(const ArrayDataPtr& mask);
Result<std::vector<uint8_t>> FilterMask(std::span<const ArrayDataPtr> chunks);

// The positions of the non-zero bytes of `mask` (the rows a RowMask
// keeps), in order: the rows a filter keeps, as Take takes them.
std::vector<int64_t> MarkedRows(std::span<const uint8_t> mask);
std::vector<int64_t> MarkedRows(const RowMask& mask);

// An array of `type` without rows (fresh, empty buffers): what a column
// without chunks combines into.
Result<ArrayDataPtr> MakeEmptyArray(const TypePtr& type);

// Take and Filter over the rows of `chunks` taken as one sequence (a
// chunked column), into one array; the chunks must share one type
// (TypeError) and there must be at least one (Invalid).
Result<ArrayDataPtr> Take(std::span<const ArrayDataPtr> chunks, std::span<const int64_t> indices);
Result<ArrayDataPtr> Filter(std::span<const ArrayDataPtr> chunks, std::span<const uint8_t> mask);
Result<ArrayDataPtr> Filter(std::span<const ArrayDataPtr> chunks, const RowMask& mask);

}  // namespace quiver
