package gate

import (
	"encoding/binary"
	"errors"
	"math"
)

// A Doc's binary form lets a server keep the Docs of a library between runs: stemming every body
// again is most of what a project's session spends before it can answer initialize. Every field
// is kept, the unexported ranking data included; the form is private to this package's version
// (DocFormat names it), so a kept Doc is read back only by the code that wrote it.

// DocFormat names the binary form of a Doc; a caller that keeps Docs keys them with it. It
// changes with the form and with what the terms are (how words are split and stemmed): a Doc
// kept by a server that stemmed otherwise would not match today's queries.
const DocFormat = "gate-doc-5"

// AppendBinary appends d's binary form to b.
func (d *Doc) AppendBinary(b []byte) []byte {
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, s := range []string{d.ID, d.Name, d.Title, d.Summary, d.FolderPath} {
		str(s)
	}
	b = binary.AppendUvarint(b, uint64(len(d.Chapters)))
	for _, c := range d.Chapters {
		str(c)
	}
	for _, n := range []int{d.Bytes, d.Tokens, d.TOCBytes, d.TOCTokens} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = binary.AppendUvarint(b, uint64(len(d.terms)))
	for _, t := range d.terms {
		b = binary.LittleEndian.AppendUint64(b, uint64(t))
	}
	for _, n := range d.lens {
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = binary.AppendUvarint(b, uint64(len(d.topicWords)))
	for _, w := range d.topicWords {
		b = binary.LittleEndian.AppendUint64(b, w.stem)
		str(w.spelling)
		b = binary.AppendUvarint(b, uint64(w.n))
	}
	return b
}

var errDoc = errors.New("gate: not a Doc's binary form")

// DecodeDoc reads a Doc from the start of b, and says how many bytes it took. Strings are
// copied, so b may be reused.
func DecodeDoc(b []byte) (Doc, int, error) {
	r := docReader{b: b}
	var d Doc
	for _, s := range []*string{&d.ID, &d.Name, &d.Title, &d.Summary, &d.FolderPath} {
		*s = r.str()
	}
	if n := r.count(1); n > 0 {
		d.Chapters = make([]string, n)
		for i := range d.Chapters {
			d.Chapters[i] = r.str()
		}
	}
	for _, n := range []*int{&d.Bytes, &d.Tokens, &d.TOCBytes, &d.TOCTokens} {
		*n = int(r.num(math.MaxInt))
	}
	if n := r.count(8); n > 0 {
		d.terms = make([]termCount, n)
		for i := range d.terms {
			d.terms[i] = termCount(r.u64())
		}
	}
	for i := range d.lens {
		d.lens[i] = int32(r.num(math.MaxInt32))
	}
	if n := r.count(10); n > 0 {
		d.topicWords = make([]topicWord, n)
		for i := range d.topicWords {
			d.topicWords[i] = topicWord{stem: r.u64(), spelling: r.str(), n: int32(r.num(math.MaxInt32))}
		}
	}
	if r.bad {
		return Doc{}, 0, errDoc
	}
	return d, len(b) - len(r.b), nil
}

// docReader reads the fields of a Doc's binary form; bad is set, and stays set, at the first
// that does not fit.
type docReader struct {
	b   []byte
	bad bool
}

func (r *docReader) num(limit uint64) uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items of at least size bytes each, that what is left of b can hold.
func (r *docReader) count(size int) int {
	n := r.num(math.MaxInt32)
	if n > uint64(len(r.b)/size) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *docReader) str() string {
	n := r.count(1)
	if r.bad {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *docReader) u64() uint64 {
	if r.bad || len(r.b) < 8 {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}
