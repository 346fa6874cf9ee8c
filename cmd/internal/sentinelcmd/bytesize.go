package sentinelcmd

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a flag value in bytes, written plainly (4194304) or with a unit (4MiB, 512KiB,
// 1GiB; KB, MB and GB are powers of ten).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

func (b *ByteSize) Set(s string) error {
	v := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q: give a positive size such as 4MiB, 512KiB or 1048576", s)
	}
	*b = ByteSize(n * mult)
	return nil
}

func (b *ByteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *ByteSize) Type() string { return "size" }
