package argumentation

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

const (
	largeArgs      = 1_000_000
	largeRelations = 5_000_000
)

var (
	largeOnce  sync.Once
	largeGraph *Graph
)

// large returns the benchmark graph: 1M arguments with random bases and 5M
// random relations, 30% rebuts, 30% undercuts, 40% supports, compressed.
// It is built once per test binary.
func large(b *testing.B) *Graph {
	b.Helper()
	largeOnce.Do(func() {
		r := rand.New(rand.NewPCG(11, 12))
		g := NewGraph()
		g.Grow(largeArgs, largeRelations)
		ids := make([]string, largeArgs)
		for i := range ids {
			ids[i] = "a" + strconv.Itoa(i)
			if err := g.AddArgument(ids[i], r.Float64()); err != nil {
				panic(err)
			}
		}
		for range largeRelations {
			from, to := ids[r.IntN(largeArgs)], ids[r.IntN(largeArgs)]
			var err error
			switch k := r.IntN(10); {
			case k < 3:
				err = g.AddAttack(from, to, Rebut)
			case k < 6:
				err = g.AddAttack(from, to, Undercut)
			default:
				err = g.AddSupport(from, to)
			}
			if err != nil {
				panic(err)
			}
		}
		g.frozen()
		largeGraph = g
	})
	return largeGraph
}

// reportMemory adds the Go heap in use and the memory obtained from the OS
// after a GC, in MB.
func reportMemory(b *testing.B) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
}

// cpuClock measures the CPU time of a benchmark loop; see cpuTime.
type cpuClock struct{ start time.Duration }

func startCPU() cpuClock {
	t, _ := cpuTime()
	return cpuClock{t}
}

// report adds the CPU milliseconds per iteration, when the platform tells.
func (c cpuClock) report(b *testing.B) {
	if t, ok := cpuTime(); ok && b.N > 0 {
		b.ReportMetric(float64(t-c.start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkStep measures one synchronous iteration (f applied to every
// argument) of each semantics on the large graph.
func BenchmarkStep(b *testing.B) {
	g := large(b)
	for _, s := range allSemantics {
		b.Run(s.String(), func(b *testing.B) {
			ev := newEvaluator(g, s)
			cur := slices.Clone(g.base)
			next := make([]float64, len(cur))
			b.ResetTimer()
			cpu := startCPU()
			for b.Loop() {
				ev.step(cur, next)
				cur, next = next, cur
			}
			cpu.report(b)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
			reportMemory(b)
		})
	}
}

// BenchmarkGatherStep is BenchmarkStep with the plain, gathering step that
// small graphs use, for comparison with the blocked step.
func BenchmarkGatherStep(b *testing.B) {
	g := large(b)
	for _, s := range allSemantics {
		b.Run(s.String(), func(b *testing.B) {
			ev := newEvaluator(g, s)
			cur := slices.Clone(g.base)
			next := make([]float64, len(cur))
			b.ResetTimer()
			cpu := startCPU()
			for b.Loop() {
				ev.gatherStep(cur, next)
				cur, next = next, cur
			}
			cpu.report(b)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
		})
	}
}

// BenchmarkGatherFloor measures the memory floor of an iteration: only
// reading each relation's source strength (5M random reads of an 8 MB
// array), which every semantics must do. On a loaded or shared machine
// compare BenchmarkStep with it rather than with a fixed number.
func BenchmarkGatherFloor(b *testing.B) {
	g := large(b)
	c := g.frozen()
	cur := slices.Clone(g.base)
	buf := make([]float64, gatherChunk*64)
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		for lo := 0; lo < c.n; lo += gatherChunk {
			e0, e1 := c.off[lo], c.off[min(lo+gatherChunk, c.n)]
			for k, j := range c.src[e0:e1] {
				buf[k] = cur[j]
			}
		}
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
}

// BenchmarkGrounded measures the grounded extension of the large graph
// (labelling and the sorted ID list).
func BenchmarkGrounded(b *testing.B) {
	g := large(b)
	var n int
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		n = len(Grounded(g))
	}
	cpu.report(b)
	b.ReportMetric(float64(n), "in-args")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
	reportMemory(b)
}

// BenchmarkCompress measures building the compressed form of the large
// graph, which the first evaluation after a mutation pays.
func BenchmarkCompress(b *testing.B) {
	g := large(b)
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		buildCSR(len(g.ids), g.edges)
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
}

// BenchmarkBlockedLayout measures building the blocked layout of the large
// graph, which the first evaluation after a mutation pays too.
func BenchmarkBlockedLayout(b *testing.B) {
	c := large(b).frozen()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		buildBlocked(c, blockTargets)
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
}

// randomAFs returns k random attack graphs of n arguments where each
// ordered pair of distinct arguments is an attack with probability p.
func randomAFs(k, n int, p float64) []*Graph {
	r := rand.New(rand.NewPCG(13, 14))
	gs := make([]*Graph, k)
	for i := range gs {
		g := NewGraph()
		for a := range n {
			_ = g.AddArgument(strconv.Itoa(a), 1)
		}
		for a := range n {
			for c := range n {
				if a != c && r.Float64() < p {
					_ = g.AddAttack(strconv.Itoa(a), strconv.Itoa(c), Rebut)
				}
			}
		}
		g.frozen()
		gs[i] = g
	}
	return gs
}

// benchmarkExtensions runs f on 101 random graphs of 100 arguments with
// attack probability 0.05, one per iteration in turn, and reports the median
// time per graph.
func benchmarkExtensions(b *testing.B, f func(*Graph) [][]string) {
	gs := randomAFs(101, 100, 0.05)
	var times []time.Duration
	exts := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		exts += len(f(gs[i%len(gs)]))
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "median-µs")
	b.ReportMetric(float64(times[len(times)-1].Microseconds()), "max-µs")
	b.ReportMetric(float64(exts)/float64(b.N), "extensions/op")
}

func BenchmarkPreferredRandom100(b *testing.B) { benchmarkExtensions(b, Preferred) }
func BenchmarkStableRandom100(b *testing.B)    { benchmarkExtensions(b, Stable) }
func BenchmarkCompleteRandom100(b *testing.B)  { benchmarkExtensions(b, Complete) }
