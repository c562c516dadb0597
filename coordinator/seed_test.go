package coordinator

import "testing"

// TestWorkerSeedUnchanged: workerSeed on internal/splitmix gives the seeds
// of its former copy of the finaliser (recorded runs stay reproducible).
func TestWorkerSeedUnchanged(t *testing.T) {
	old := func(seed uint64, run, index int) uint64 {
		z := seed + uint64(run)*0x9e3779b97f4a7c15 + uint64(index+1)*0xbf58476d1ce4e5b9
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for _, seed := range []uint64{0, 1, 20261121, 1<<63 + 12345} {
		for run := range 4 {
			for index := -3; index < 4; index++ {
				if got, want := WorkerSeed(seed, run, index), old(seed, run, index); got != want {
					t.Errorf("WorkerSeed(%d, %d, %d) = %#x, want %#x", seed, run, index, got, want)
				}
			}
		}
	}
}
