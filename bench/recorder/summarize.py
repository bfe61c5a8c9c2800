#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarizes bench/run-recorder.sh runs.

summarize.py RUNS.jsonl OUT.json META_JSON [SWS.jsonl]
                                             -> markdown table on stdout, JSON file
summarize.py --line COUNT RESULT_JSON        -> one-line progress text

Never fails because of a figure: missing values print as n/a.
"""
import json
import os
import statistics
import sys

ORDER = ["recorder", "bare", "ffmpeg", "ffmpeg-601", "bare-nomux", "ffmpeg-444"]
NAMES = {
    "recorder": "recorder/ (recorder-bench)",
    "bare": "bare loop (libyuv+x264+mkv)",
    "ffmpeg": "ffmpeg CLI",
    "ffmpeg-601": "ffmpeg CLI, BT.601 tagged as recorder/",
    "bare-nomux": "bare loop, packets discarded",
    "ffmpeg-444": "ffmpeg CLI without -pix_fmt (yuv444p)",
}
GOAL_PCT = 5.0


def num(d, k):
    v = d.get(k) if isinstance(d, dict) else None
    return float(v) if isinstance(v, (int, float)) else None


def derive(run, count):
    """Per-run figures from a runs.jsonl record, or None."""
    res = run.get("result")
    if not isinstance(res, dict) or run.get("exit") != 0:
        return None
    wall, user, sys_ = num(res, "wall_s"), num(res, "user_s"), num(res, "sys_s")
    if not wall or user is None or sys_ is None:
        return None
    frames = num(res, "frames") if "frames" in res else float(count)
    if not frames:
        return None
    cpu = user + sys_
    rss = num(res, "maxrss_kb")
    before = num(res, "maxrss_before_kb")
    d = {
        "frames": frames,
        "wall_s": wall,
        "cpu_s": cpu,
        "fps": frames / wall,
        "cpu_ms_per_frame": cpu * 1e3 / frames,
        "cpu_cores": cpu / wall,
        "peak_rss_mib": rss / 1024 if rss is not None else None,
        # In-process runs hold the 60-frame pool (loaded before timing).
        "rss_excl_pool_mib": (rss - before) / 1024 if rss is not None and before is not None
        else (rss / 1024 if rss is not None else None),
    }
    # Per-thread scheduler figures (in-process runs only, up to the last
    # frame encoded): the busiest thread is the serial one (recorder's
    # worker / bare loop's main thread: sws_scale + x264's serial part +
    # muxing); run queue wait = runnable but no CPU free (contention).
    ts = res.get("thread_sched")
    if isinstance(ts, list) and ts:
        t_run = sum(t.get("run_s", 0) for t in ts)
        t_wait = sum(t.get("runqueue_wait_s", 0) for t in ts)
        d["serial_thread_cpu_ms_per_frame"] = max(t.get("run_s", 0) for t in ts) * 1e3 / frames
        d["runqueue_wait_per_run"] = t_wait / t_run if t_run > 0 else None
        d["main_thread_cpu_ms_per_frame"] = ts[0].get("run_s", 0) * 1e3 / frames
    try:
        hz = os.sysconf("SC_CLK_TCK")
        b0, _ = (float(x) for x in run["cpustat_before"].split())
        b1, _ = (float(x) for x in run["cpustat_after"].split())
        busy = (b1 - b0) / hz
        d["machine_busy_cores"] = busy / wall
        d["other_busy_cores"] = max(0.0, (busy - cpu) / wall)
    except Exception:
        pass
    try:
        d["load1_before"] = float(run["load_before"].split()[0])
        d["load1_after"] = float(run["load_after"].split()[0])
    except Exception:
        pass
    return d


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def fmt_range(s, prec):
    if not s:
        return "n/a"
    f = "%%.%df" % prec
    return (f + " (" + f + "–" + f + ")") % (s["median"], s["min"], s["max"])


def fmt_pct(v):
    return "n/a" if v is None else "%+.1f%%" % v


def pct_fps(rec, ref):
    """Throughput lost relative to ref, % (positive: slower than ref)."""
    return None if not rec or not ref else (ref - rec) / ref * 100


def pct_cpu(rec, ref):
    """Extra CPU per frame relative to ref, %."""
    return None if not rec or not ref else (rec - ref) / ref * 100


def x264_options(sei):
    if not sei or "options:" not in sei:
        return None
    return dict(kv.split("=", 1) if "=" in kv else (kv, "")
                for kv in sei.split("options:", 1)[1].split())


def line_mode(count, text):
    try:
        d = derive({"result": json.loads(text), "exit": 0,
                    "cpustat_before": "", "cpustat_after": ""}, count)
        print("%.1f fps, %.2f CPU ms/frame" % (d["fps"], d["cpu_ms_per_frame"]))
    except Exception:
        print("n/a")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--line":
        line_mode(int(sys.argv[2]), sys.argv[3])
        return 0
    runs_path, out_path, meta_text = sys.argv[1:4]
    sws = []
    if len(sys.argv) > 4:
        try:
            with open(sys.argv[4]) as f:
                for ln in f:
                    try:
                        sws.append(json.loads(ln))
                    except ValueError:
                        pass
        except OSError:
            pass
    meta = json.loads(meta_text)
    count = int(meta.get("count", 600))
    runs = []
    with open(runs_path) as f:
        for ln in f:
            ln = ln.strip()
            if ln:
                try:
                    runs.append(json.loads(ln))
                except ValueError:
                    pass
    for r in runs:
        r["derived"] = derive(r, count)

    sizes = []
    for r in runs:
        if r["size"] not in sizes:
            sizes.append(r["size"])
    summary, overhead, checks = {}, {}, {}
    for s in sizes:
        summary[s] = {}
        for v in ORDER:
            ds = [r["derived"] for r in runs if r["size"] == s and r["variant"] == v]
            if not ds:
                continue
            ok = [d for d in ds if d]
            summary[s][v] = {
                "runs": len(ds), "ok_runs": len(ok),
                **{k: stats([d.get(k) for d in ok]) for k in (
                    "fps", "cpu_ms_per_frame", "cpu_cores", "peak_rss_mib",
                    "rss_excl_pool_mib", "other_busy_cores", "load1_before", "load1_after",
                    "serial_thread_cpu_ms_per_frame", "main_thread_cpu_ms_per_frame",
                    "runqueue_wait_per_run")},
            }
        # Overheads vs the bare loop: from the medians, and paired per round
        # (runs of one round are adjacent in time, so they share the load).
        overhead[s] = {}
        ref = summary[s].get("bare")
        for v in ("recorder", "ffmpeg", "ffmpeg-601", "bare-nomux", "ffmpeg-444"):
            cur = summary[s].get(v)
            if not cur or not ref:
                continue
            o = {
                "fps_pct_from_medians": pct_fps(cur["fps"] and cur["fps"]["median"],
                                                ref["fps"] and ref["fps"]["median"]),
                "cpu_pct_from_medians": pct_cpu(
                    cur["cpu_ms_per_frame"] and cur["cpu_ms_per_frame"]["median"],
                    ref["cpu_ms_per_frame"] and ref["cpu_ms_per_frame"]["median"]),
            }
            pf, pc = [], []
            for rd in sorted({r["round"] for r in runs}):
                a = [r["derived"] for r in runs if r["size"] == s and r["variant"] == v
                     and r["round"] == rd and r["derived"]]
                b = [r["derived"] for r in runs if r["size"] == s and r["variant"] == "bare"
                     and r["round"] == rd and r["derived"]]
                if a and b:
                    pf.append(pct_fps(a[0]["fps"], b[0]["fps"]))
                    pc.append(pct_cpu(a[0]["cpu_ms_per_frame"], b[0]["cpu_ms_per_frame"]))
            ps = []
            for rd in sorted({r["round"] for r in runs}):
                a = [r["derived"] for r in runs if r["size"] == s and r["variant"] == v
                     and r["round"] == rd and r["derived"]
                     and r["derived"].get("serial_thread_cpu_ms_per_frame")]
                b = [r["derived"] for r in runs if r["size"] == s and r["variant"] == "bare"
                     and r["round"] == rd and r["derived"]
                     and r["derived"].get("serial_thread_cpu_ms_per_frame")]
                if a and b:
                    ps.append(pct_cpu(a[0]["serial_thread_cpu_ms_per_frame"],
                                      b[0]["serial_thread_cpu_ms_per_frame"]))
            o["serial_thread_cpu_pct_paired"] = stats(ps)
            o["fps_pct_paired"] = stats(pf)
            o["cpu_pct_paired"] = stats(pc)
            overhead[s][v] = o

        # Checks: same x264 configuration, frame counts, no lost frames.
        c = {}
        seis = {r["variant"]: r.get("x264_sei") for r in runs
                if r["size"] == s and r.get("x264_sei")}
        opts = {v: x264_options(t) for v, t in seis.items()}
        c["x264_sei"] = seis
        base = opts.get("bare")
        diffs = {}
        for v, o in opts.items():
            if base is None or o is None or v == "bare":
                continue
            keys = sorted(set(base) | set(o))
            dk = {k: [base.get(k), o.get(k)] for k in keys if base.get(k) != o.get(k)}
            diffs[v] = dk
        c["x264_option_diffs_vs_bare"] = diffs
        c["x264_options_identical"] = bool(opts) and all(not d for d in diffs.values()) \
            and len(opts) >= 3
        c["ffprobe"] = {r["variant"]: r.get("ffprobe") for r in runs
                        if r["size"] == s and r.get("ffprobe")}
        packets = {}
        for v, p in c["ffprobe"].items():
            try:
                packets[v] = int(p["streams"][0]["nb_read_packets"])
            except Exception:
                packets[v] = None
        c["packets_in_file"] = packets
        rec = [r["result"] for r in runs if r["size"] == s and r["variant"] == "recorder"
               and isinstance(r.get("result"), dict)]
        c["recorder_lost_frames"] = [x.get("lost") for x in rec]
        c["recorder_encoded"] = [x.get("encoded") for x in rec]
        c["recorder_eagain_retries"] = [x.get("eagain_retries") for x in rec]
        c["recorder_stats_dropped"] = [x.get("stats_dropped") for x in rec]
        c["recorder_worker_ms_per_frame_mean"] = [x.get("worker_ms_per_frame_mean") for x in rec]
        c["output_bytes_round1"] = {r["variant"]: r.get("output_bytes") for r in runs
                                    if r["size"] == s and r["round"] == 1}
        checks[s] = c

    # Markdown.
    md = []
    md.append("| resolution | pipeline | fps median (min–max) | CPU ms/frame median (min–max) "
              "| peak RSS MiB (excl. frame pool) | overhead vs bare loop: fps / CPU per frame |")
    md.append("|---|---|---|---|---|---|")
    for s in sizes:
        for v in ORDER:
            g = summary[s].get(v)
            if not g:
                continue
            rss = g["peak_rss_mib"]
            exc = g["rss_excl_pool_mib"]
            rss_txt = "n/a" if not rss else ("%.0f" % rss["median"] +
                                              (" (%.0f)" % exc["median"] if exc and not v.startswith("ffmpeg")
                                               else ""))
            if v == "bare":
                ov = "reference"
            else:
                o = overhead[s].get(v, {})
                ov = "%s / %s" % (fmt_pct(o.get("fps_pct_from_medians")),
                                  fmt_pct(o.get("cpu_pct_from_medians")))
            md.append("| %s | %s | %s | %s | %s | %s |" % (
                s, NAMES[v], fmt_range(g["fps"], 1), fmt_range(g["cpu_ms_per_frame"], 2),
                rss_txt, ov))
    md.append("")
    for s in sizes:
        o = overhead[s].get("recorder")
        if not o:
            continue
        pf, pc = o.get("fps_pct_paired"), o.get("cpu_pct_paired")
        pst = o.get("serial_thread_cpu_pct_paired")
        md.append("recorder/ vs bare loop at %s, paired per round (median (min–max)): "
                  "fps lost %s, CPU/frame %s, serial thread CPU/frame %s"
                  % (s, fmt_range(pf, 1) + "%" if pf else "n/a",
                     fmt_range(pc, 1) + "%" if pc else "n/a",
                     fmt_range(pst, 1) + "%" if pst else "n/a"))
    md.append("")
    md.append("| resolution | pipeline | serial thread CPU ms/frame | main thread CPU ms/frame "
              "| run-queue wait per CPU second | other processes' CPU (cores) |")
    md.append("|---|---|---|---|---|---|")
    for s in sizes:
        for v in ORDER:
            g = summary[s].get(v)
            if not g:
                continue
            md.append("| %s | %s | %s | %s | %s | %s |" % (
                s, NAMES[v], fmt_range(g.get("serial_thread_cpu_ms_per_frame"), 2),
                fmt_range(g.get("main_thread_cpu_ms_per_frame"), 2),
                fmt_range(g.get("runqueue_wait_per_run"), 2),
                fmt_range(g.get("other_busy_cores"), 2)))
    md.append("")
    for s in sizes:
        c = checks[s]
        md.append("%s: x264 options identical across pipelines: %s; packets in file: %s; "
                  "recorder lost frames: %s, EAGAIN retries: %s (= recorder stats.dropped %s)"
                  % (s, c["x264_options_identical"], c["packets_in_file"],
                     c["recorder_lost_frames"], c["recorder_eagain_retries"],
                     c["recorder_stats_dropped"]))
        if c["x264_option_diffs_vs_bare"]:
            for v, dk in c["x264_option_diffs_vs_bare"].items():
                if dk:
                    md.append("  x264 options of %s differing from bare loop: %s" % (v, dk))
    md.append("")
    if sws:
        md.append("Conversion alone (sws-bench, %s frames per variant):" % sws[0].get("frames"))
        md.append("")
        md.append("| resolution | variant | API, threads | wall ms/frame | calling thread CPU ms/frame "
                  "| output = plain's |")
        md.append("|---|---|---|---|---|---|")
        ref = {}
        for x in sws:
            key = "%sx%s" % (x.get("width"), x.get("height"))
            ref.setdefault(key, x.get("output_hash"))
            md.append("| %s | %s | %s, %s | %.2f | %.2f | %s |" % (
                key, x.get("variant"), x.get("api"), x.get("threads"),
                x.get("wall_ms_per_frame", 0), x.get("calling_thread_cpu_ms_per_frame", 0),
                "yes" if x.get("output_hash") == ref[key] else "no"))
        md.append("")
    md.append("load average (1/5/15 min): start %s, end %s" %
              (meta.get("load_start"), meta.get("load_end")))
    text = "\n".join(md)
    print(text)

    out = {"meta": meta, "goal_overhead_pct": GOAL_PCT, "summary": summary,
           "overhead_vs_bare": overhead, "checks": checks, "sws_bench": sws, "markdown": text, "runs": runs}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
