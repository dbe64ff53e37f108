// This file reads what the machine says about its clocks and CPU frequency: the
// kernel's clock source, the TSC flags, cpufreq's governor and range.

package timing

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// System is what Linux tells about timekeeping and frequency scaling.
type System struct {
	CPUs        int
	Model       string
	ClockSource string   // /sys/devices/system/clocksource/clocksource0/current_clocksource
	TSCFlags    []string // of constant_tsc, nonstop_tsc, tsc_known_freq, rdtscp in /proc/cpuinfo
	Hypervisor  bool     // the "hypervisor" cpuinfo flag: a virtual machine
	// Governor, MinKHz, MaxKHz and CurKHz come from cpufreq (cpu0); empty and 0 when
	// the kernel does not expose it (common in virtual machines, where the host
	// scales the frequency unseen).
	Governor               string
	MinKHz, MaxKHz, CurKHz int
	Boost                  string // "on", "off" or "" when not exposed
}

// Scaling describes frequency scaling in a sentence.
func (s System) Scaling() string {
	switch {
	case s.Governor == "" && s.Hypervisor:
		return "not visible: cpufreq is not exposed in this virtual machine (the host may scale the frequency unseen)"
	case s.Governor == "":
		return "not visible: cpufreq is not exposed"
	case s.Governor == "performance" && s.MinKHz == s.MaxKHz:
		return "off: governor performance, fixed frequency"
	default:
		msg := "governor " + s.Governor + ", " + strconv.Itoa(s.MinKHz/1000) + "–" + strconv.Itoa(s.MaxKHz/1000) +
			" MHz (now " + strconv.Itoa(s.CurKHz/1000) + " MHz)"
		if s.Boost != "" {
			msg += ", boost " + s.Boost
		}
		if s.Governor != "performance" || s.MinKHz != s.MaxKHz {
			msg += ": the frequency may change during a measurement (consider the performance governor)"
		}
		return msg
	}
}

// ReadSystem reads /proc and /sys; what is missing stays empty.
func ReadSystem() System {
	s := System{CPUs: runtime.NumCPU()}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	s.ClockSource = read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	if info := read("/proc/cpuinfo"); info != "" {
		for _, l := range strings.Split(info, "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch k {
			case "model name":
				if s.Model == "" {
					s.Model = v
				}
			case "flags":
				if s.TSCFlags != nil {
					continue
				}
				s.TSCFlags = []string{}
				for _, f := range strings.Fields(v) {
					switch f {
					case "constant_tsc", "nonstop_tsc", "tsc_known_freq", "rdtscp":
						s.TSCFlags = append(s.TSCFlags, f)
					case "hypervisor":
						s.Hypervisor = true
					}
				}
			}
		}
	}
	cf := "/sys/devices/system/cpu/cpu0/cpufreq"
	s.Governor = read(filepath.Join(cf, "scaling_governor"))
	atoi := func(p string) int { n, _ := strconv.Atoi(read(p)); return n }
	s.MinKHz, s.MaxKHz, s.CurKHz = atoi(filepath.Join(cf, "scaling_min_freq")), atoi(filepath.Join(cf, "scaling_max_freq")), atoi(filepath.Join(cf, "scaling_cur_freq"))
	switch read("/sys/devices/system/cpu/cpufreq/boost") {
	case "1":
		s.Boost = "on"
	case "0":
		s.Boost = "off"
	}
	if read("/sys/devices/system/cpu/intel_pstate/no_turbo") == "0" {
		s.Boost = "on"
	}
	return s
}
