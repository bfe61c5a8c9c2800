#!/usr/bin/env python3
"""report.py RAW_DIR --json OUT.json [--note TEXT]... : the VKMS bench's tables.

Reads the raw session directories bench/vkms/guest.sh left under RAW_DIR
(<mode>/<config>/run<N>/), probes the recordings with ffprobe (here, on the host: it is not
part of what is measured), prints markdown tables and writes the JSON. Never fails on a
number: anything missing or unparsable becomes null ("n/a" in the tables). Exit status 1
only when no session left any output at all.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

USER_HZ = 100  # /proc/stat and /proc/PID/stat tick rate on Linux x86 (CLK_TCK)
# A wbc-writeback session that lost a writeback frame or fell back to readback is reported
# as FELL_BACK, apart: never averaged into the writeback rows.
FELL_BACK = 'wbc-writeback-fell-back'
# wbc-writeback-skip, -deadline: the same with --writeback-pacing skip (the display never
# waits) and deadline (it waits until shortly before the next vblank).
SKIP = 'wbc-writeback-skip'
SKIP_FELL_BACK = 'wbc-writeback-skip-fell-back'
DEADLINE = 'wbc-writeback-deadline'
DEADLINE_FELL_BACK = 'wbc-writeback-deadline-fell-back'
FELL_BACK_OF = {'wbc-writeback': FELL_BACK, SKIP: SKIP_FELL_BACK, DEADLINE: DEADLINE_FELL_BACK}
WRITEBACK = tuple(FELL_BACK_OF) + tuple(FELL_BACK_OF.values())
WBC_CONFIGS = WRITEBACK + ('wbc-readback', 'wbc-display')
RECORDING = WRITEBACK + ('wbc-readback', 'cage-wf-recorder')
ORDER = ('wbc-writeback', FELL_BACK, SKIP, SKIP_FELL_BACK, DEADLINE, DEADLINE_FELL_BACK,
         'wbc-readback', 'cage-wf-recorder', 'wbc-display', 'cage-display')


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return None


def kv(text):
    """'a=1 b="x y"' -> {'a': '1', 'b': 'x y'} (last occurrence wins)."""
    out = {}
    if not text:
        return out
    for m in re.finditer(r'(\w+)=("([^"]*)"|\S+)', text):
        out[m.group(1)] = m.group(3) if m.group(3) is not None else m.group(2)
    return out


def num(v):
    try:
        x = float(v)
        return int(x) if x.is_integer() else x
    except (TypeError, ValueError):
        return None


def cpu_busy(line):
    """'cpu  user nice system idle iowait irq softirq steal ...' -> busy ticks, all ticks."""
    if not line:
        return None, None
    f = line.split()
    if not f or f[0] != 'cpu':
        return None, None
    v = [int(x) for x in f[1:]]
    v += [0] * (8 - len(v))
    user, nice, system, idle, iowait, irq, softirq, steal = v[:8]
    return user + nice + system + irq + softirq, sum(v[:8])


def delta_cpu(a, b):
    ba, ta = cpu_busy(a)
    bb, tb = cpu_busy(b)
    if None in (ba, ta, bb, tb):
        return None, None
    return (bb - ba) / USER_HZ, (tb - ta) / USER_HZ


def ffprobe(path):
    if not os.path.exists(path):
        return {'error': 'no output file'}
    try:
        p = subprocess.run(
            ['ffprobe', '-v', 'error', '-count_frames', '-select_streams', 'v:0',
             '-show_entries', 'stream=nb_read_frames,codec_name,pix_fmt,width,height'
             ':format=duration,size', '-of', 'json', path],
            capture_output=True, text=True, timeout=300)
        j = json.loads(p.stdout or '{}')
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return {'error': str(e)}
    s = (j.get('streams') or [{}])[0]
    fmt = j.get('format') or {}
    out = {'frames': num(s.get('nb_read_frames')), 'codec': s.get('codec_name'),
           'pix_fmt': s.get('pix_fmt'), 'width': s.get('width'), 'height': s.get('height'),
           'duration_s': num(fmt.get('duration')), 'bytes': num(fmt.get('size'))}
    if out['frames'] is None and os.path.getsize(path) > 0 and 'End of file' in (p.stderr or ''):
        out['frames'] = 0  # a valid container that holds no video frame
    if p.returncode != 0 or out['frames'] is None:
        out['error'] = (p.stderr or '').strip().splitlines()[-1:] or ['ffprobe failed']
        out['error'] = out['error'][0]
    return out


def poll(path):
    d = kv(read(path))
    hwm, ticks = num(d.get('hwm_kb')), num(d.get('ticks'))
    return {'peak_rss_mb': round(hwm / 1024, 1) if hwm else None,
            'cpu_s': ticks / USER_HZ if ticks is not None else None}


def session(d):
    meta = kv(read(os.path.join(d, 'meta')))
    cfg = meta.get('config') or os.path.basename(os.path.dirname(d))
    secs = num(meta.get('seconds'))
    r = {'config': cfg, 'mode': meta.get('mode'), 'dir': d, 'seconds': secs}
    ss, se = kv(read(os.path.join(d, 'session-start'))), kv(read(os.path.join(d, 'session-end')))
    a0, a1 = kv(read(os.path.join(d, 'app-start'))), kv(read(os.path.join(d, 'app-end')))
    stop = kv(read(os.path.join(d, 'rec-stop')))
    r['status'] = num(se.get('rc'))
    r['session_wall_s'] = _sub(se.get('t'), ss.get('t'))
    r['window_wall_s'] = _sub(a1.get('t'), a0.get('t'))
    busy, total = delta_cpu(a0.get('cpu'), a1.get('cpu'))
    r['window_cpu_s'], r['window_cpu_capacity_s'] = busy, total
    busy, _ = delta_cpu(ss.get('cpu'), se.get('cpu'))
    r['session_cpu_s'] = busy
    ic = kv(read(os.path.join(d, 'idle-check')))
    b, t = delta_cpu(ic.get('before'), ic.get('after'))
    r['idle_check_busy_fraction'] = round(b / t, 3) if b is not None and t else None

    log = read(os.path.join(d, 'compositor.log')) or ''
    st = kv(([l for l in log.splitlines() if l.startswith('wbc: stats ')] or [''])[-1])
    rf = kv(([l for l in log.splitlines() if l.startswith('wbc: rec final ')] or [''])[-1])
    client_total = num((read(os.path.join(d, 'client.frames')) or '').strip())
    r['client_frames_total'] = client_total
    r['compositor'] = poll(os.path.join(d, 'compositor.poll'))
    r['client'] = poll(os.path.join(d, 'client.poll'))
    cap = kv(read(os.path.join(d, 'capture')))
    r['capture_method'] = cap.get('method')
    r['writeback_lost'] = num(cap.get('lost'))
    r['fell_back'] = bool(num(cap.get('stalled')))
    if cfg in FELL_BACK_OF and (r['fell_back'] or r['writeback_lost'] or not cap):
        # (no record of the method: not shown as writeback)
        cfg = r['config'] = FELL_BACK_OF[cfg]
    if cfg in WBC_CONFIGS:
        r['commits'], r['flips'] = num(st.get('commits')), num(st.get('flips'))
        r['missed_vblanks'] = num(st.get('missed_vblanks'))
        r['displayed'] = r['flips']
        r['rec_seconds'] = secs
        r['wbc_captured'], r['wbc_encoded'] = num(rf.get('captured')), num(rf.get('encoded'))
        r['wbc_dropped'] = num(rf.get('dropped'))
        r['wbc_skipped_busy'] = num(rf.get('skipped_busy'))
        r['recorder'] = dict(r['compositor'], note='in wbc (same process)')
    else:
        f0, f1 = num(a0.get('frames')), num(stop.get('frames') or a1.get('frames'))
        r['displayed'] = f1 - f0 if f0 is not None and f1 is not None else None
        r['displayed_source'] = 'client frames drawn (one per frame callback) during the ' + \
            ('recording' if cfg == 'cage-wf-recorder' else 'window')
        r['missed_vblanks'] = None
        r['rec_seconds'] = (_sub(stop.get('t'), a0.get('t')) if cfg == 'cage-wf-recorder'
                            else r['window_wall_s'])
        if cfg == 'cage-wf-recorder':
            r['recorder'] = poll(os.path.join(d, 'recorder.poll'))
            r['wf_recorder_exit'] = a1.get('how')
            wl = read(os.path.join(d, 'wf-recorder.log')) or ''
            n = [int(m.group(1)) for m in re.finditer(r'frame [IPB]:(\d+)', wl)]
            r['x264_frames'] = sum(n) if n else None
            if 'WAYLAND_DEBUG' in (read(os.path.join(d, 'meta')) or '') or '.ready(' in wl:
                r['screencopy_ready'] = wl.count('.ready(')
        r['basic_test_failed_lines'] = num((read(os.path.join(d, 'basic-test-failed.count')) or '').strip())
    if cfg in RECORDING:
        r['output'] = ffprobe(os.path.join(d, 'out.mkv'))
        rec = r['output'].get('frames')
        r['recorded'] = rec
        disp = r.get('displayed')
        r['not_recorded'] = disp - rec if disp is not None and rec is not None else None
        r['drop_fraction'] = (r['not_recorded'] / disp
                              if disp and r['not_recorded'] is not None else None)
        r['cpu_s_per_recorded_frame'] = (r['window_cpu_s'] / rec
                                         if rec and r['window_cpu_s'] is not None else None)
        r['session_cpu_s_per_recorded_frame'] = (r['session_cpu_s'] / rec
                                                 if rec and r['session_cpu_s'] is not None else None)
        rs = r.get('rec_seconds')
        r['recorded_fps'] = rec / rs if rec is not None and rs else None
    disp = r.get('displayed')
    r['displayed_fps'] = disp / r['rec_seconds'] if disp is not None and r.get('rec_seconds') else None
    r['cpu_s_per_displayed_frame'] = (r['window_cpu_s'] / disp
                                      if disp and r['window_cpu_s'] is not None else None)
    # wbc's recorder: ms from each frame's vblank to its pixels being complete (writeback:
    # the out-fence's kernel signal time; readback: the copy's end) and to its packet going
    # to the muxer. wf-recorder reports nothing comparable: n/a.
    for k in ('ready_ms_p50', 'ready_ms_p99', 'written_ms_p50', 'written_ms_p99'):
        r[k] = num(rf.get(k)) if cfg in WBC_CONFIGS and cfg in RECORDING else None
    return r


def _sub(a, b):
    a, b = num(a), num(b)
    return round(a - b, 3) if a is not None and b is not None else None


def agg(values):
    v = [x for x in values if isinstance(x, (int, float))]
    if not v:
        return None
    return {'median': statistics.median(v), 'min': min(v), 'max': max(v), 'n': len(v)}


def fmt(a, digits=1, scale=1.0):
    if not a:
        return 'n/a'
    f = '%.' + str(digits) + 'f'
    m, lo, hi = (f % (a['median'] * scale), f % (a['min'] * scale), f % (a['max'] * scale))
    return m if a['n'] == 1 or lo == hi else '%s (%s–%s)' % (m, lo, hi)


METRICS = [
    ('displayed', 'displayed', 0), ('displayed_fps', 'disp fps', 1),
    ('recorded', 'recorded', 0), ('recorded_fps', 'rec fps', 1),
    ('not_recorded', 'not recorded (displayed − recorded)', 0),
    ('drop_fraction', 'share not recorded', 2),
    ('wbc_captured', 'wbc frames captured', 0),
    ('wbc_dropped', 'wbc recorder drops (queue full)', 0),
    ('wbc_skipped_busy', 'wbc flips not captured (recorder busy)', 0),
    ('missed_vblanks', 'missed vblanks', 0),
    ('cpu_s_per_recorded_frame', 'guest CPU s / rec frame', 3),
    ('cpu_s_per_displayed_frame', 'guest CPU s / disp frame', 3),
    ('window_cpu_util', 'guest CPU busy', 2),
    ('rss_compositor', 'peak RSS compositor MB', 1), ('rss_recorder', 'peak RSS recorder MB', 1),
    ('ready_ms_p50', 'latency vblank→pixels complete ms, p50', 1),
    ('ready_ms_p99', 'latency vblank→pixels complete ms, p99', 1),
    ('written_ms_p50', 'latency vblank→packet written ms, p50', 0),
    ('written_ms_p99', 'latency vblank→packet written ms, p99', 0),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('raw')
    ap.add_argument('--json', required=True)
    ap.add_argument('--note', action='append', default=[])
    ap.add_argument('--setting', action='append', default=[], help='KEY=VALUE for the JSON')
    a = ap.parse_args()

    sessions = []
    for mode in sorted(os.listdir(a.raw)) if os.path.isdir(a.raw) else []:
        md = os.path.join(a.raw, mode)
        if mode == 'warmup' or not os.path.isdir(md):
            continue
        for cfg in sorted(os.listdir(md)):
            for run in sorted(os.listdir(os.path.join(md, cfg))):
                d = os.path.join(md, cfg, run)
                if os.path.isfile(os.path.join(d, 'meta')):
                    try:
                        s = session(d)
                    except Exception as e:  # never fail on a number
                        s = {'config': cfg, 'mode': mode, 'dir': d, 'error': repr(e)}
                    s['run'] = run
                    sessions.append(s)
    for s in sessions:
        s['rss_compositor'] = (s.get('compositor') or {}).get('peak_rss_mb')
        s['rss_recorder'] = (s.get('recorder') or {}).get('peak_rss_mb')
        cap = s.get('window_cpu_capacity_s')
        s['window_cpu_util'] = (s['window_cpu_s'] / cap
                                if cap and s.get('window_cpu_s') is not None else None)

    modes = sorted({s['mode'] for s in sessions if s.get('mode')},
                   key=lambda m: [int(x) for x in m.split('x')] if re.match(r'^\d+x\d+$', m) else [0])
    summary = {}
    for mode in modes:
        summary[mode] = {}
        for cfg in ORDER:
            ss = [s for s in sessions if s.get('mode') == mode and s.get('config') == cfg]
            if not ss:
                continue
            summary[mode][cfg] = {k: agg([s.get(k) for s in ss]) for k, _, _ in METRICS}
            summary[mode][cfg]['runs'] = len(ss)
            summary[mode][cfg]['failed_runs'] = [
                s['run'] for s in ss if s.get('error') or s.get('status') not in (0, None)
                or (cfg in RECORDING and not s.get('recorded'))
                or (cfg in WBC_CONFIGS and s.get('displayed_fps') is not None
                    and s['displayed_fps'] < 2 and (s.get('seconds') or 0) >= 5)]
        # ratios peer / wbc (medians)
        rat = {}
        peer = summary[mode].get('cage-wf-recorder')
        for w in tuple(FELL_BACK_OF) + ('wbc-readback',):
            wb = summary[mode].get(w)
            if not (peer and wb):
                continue
            for k in ('cpu_s_per_recorded_frame', 'not_recorded', 'drop_fraction'):
                p, q = peer.get(k), wb.get(k)
                if p and q and q['median']:
                    rat['%s/%s %s' % ('cage-wf-recorder', w, k)] = p['median'] / q['median']
                elif p and q:
                    rat['%s/%s %s' % ('cage-wf-recorder', w, k)] = None
        pd, wd = summary[mode].get('cage-display'), summary[mode].get('wbc-display')
        if pd and wd and (pd.get('cpu_s_per_displayed_frame') or {}).get('median') and \
                (wd.get('cpu_s_per_displayed_frame') or {}).get('median'):
            rat['cage-display/wbc-display cpu_s_per_displayed_frame'] = \
                pd['cpu_s_per_displayed_frame']['median'] / wd['cpu_s_per_displayed_frame']['median']
        summary[mode]['ratios'] = rat

    # ---- markdown ----
    out = []
    for mode in modes:
        out.append('\n### %s (VKMS, TCG guest, 2 vCPUs) — median (min–max) over runs\n' % mode)
        cfgs = [c for c in ORDER if c in summary[mode]]
        out.append('| metric | ' + ' | '.join('%s (%d run%s)' % (c, summary[mode][c]['runs'],
                   '' if summary[mode][c]['runs'] == 1 else 's') for c in cfgs) + ' |')
        out.append('|---|' + '---|' * len(cfgs))
        for k, label, dg in METRICS:
            row = []
            for c in cfgs:
                v = summary[mode][c].get(k)
                if k in ('cpu_s_per_recorded_frame', 'recorded', 'recorded_fps', 'not_recorded',
                         'drop_fraction') and c not in RECORDING:
                    row.append('—')
                elif k in ('wbc_captured', 'wbc_dropped', 'wbc_skipped_busy') and \
                        c not in WRITEBACK + ('wbc-readback',):
                    row.append('—')
                elif k in ('window_cpu_util', 'drop_fraction'):
                    row.append(fmt(v, 0, 100.0) + ('%' if v else ''))
                else:
                    row.append(fmt(v, dg))
            out.append('| %s | %s |' % (label, ' | '.join(row)))
        fr = {c: summary[mode][c]['failed_runs'] for c in cfgs if summary[mode][c]['failed_runs']}
        if fr:
            out.append('\nRuns with a non-zero status, no recorded frame or a stalled display (< 2 frames/s): %s' %
                       ', '.join('%s %s' % (c, ' '.join(v)) for c, v in fr.items()))
        if summary[mode]['ratios']:
            out.append('\n| ratio (medians) | value |')
            out.append('|---|---|')
            for k, v in summary[mode]['ratios'].items():
                w = k.split('/')[1].split()[0]
                bad = summary[mode].get(w, {}).get('failed_runs')
                out.append('| %s | %s%s |' % (k, 'n/a (wbc median 0)' if v is None else '%.2f' % v,
                           ' (not meaningful: %s runs failed or recorded nothing)' % w if bad else ''))
    out.append('\nPer run:\n')
    out.append('| mode | config | run | capture | wb lost | status | displayed | recorded | wbc drops | '
               'disp−rec | missed vbl | window s | guest CPU s | CPU s/rec frame | RSS comp/rec MB | note |')
    out.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')

    def c(v, d=0):
        if v is None:
            return 'n/a'
        return ('%.' + str(d) + 'f') % v if isinstance(v, float) else str(v)
    for s in sorted(sessions, key=lambda s: (modes.index(s['mode']) if s.get('mode') in modes else 0,
                                             ORDER.index(s['config']) if s.get('config') in ORDER else 9,
                                             s.get('run', ''))):
        note = s.get('error') or (s.get('output') or {}).get('error') or ''
        if s.get('wf_recorder_exit') and s['wf_recorder_exit'] != 'exited':
            note = (note + ' wf-recorder ' + s['wf_recorder_exit']).strip()
        if s.get('config') in WBC_CONFIGS and s.get('displayed_fps') is not None and \
                s['displayed_fps'] < 2 and (s.get('seconds') or 0) >= 5:
            note = (note + ' display stalled: %s flips in %s s' % (s.get('displayed'),
                    s.get('seconds'))).strip()
        if s.get('x264_frames') is not None:
            note = (note + ' x264 frames %d' % s['x264_frames']).strip()
        method = s.get('capture_method') or ('—' if s.get('config') not in WBC_CONFIGS else 'n/a')
        if s.get('fell_back'):
            method += ' → readback'
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s | %s |' % (
            s.get('mode'), s.get('config'), s.get('run'), method,
            c(s.get('writeback_lost')) if s.get('config') in WBC_CONFIGS else '—',
            c(s.get('status')), c(s.get('displayed')),
            c(s.get('recorded')) if s.get('config') in RECORDING else '—',
            c(s.get('wbc_dropped')) if s.get('config') in WRITEBACK + ('wbc-readback',) else '—',
            c(s.get('not_recorded')) if s.get('config') in RECORDING else '—',
            c(s.get('missed_vblanks')), c(s.get('window_wall_s'), 1), c(s.get('window_cpu_s'), 1),
            c(s.get('cpu_s_per_recorded_frame'), 3) if s.get('config') in RECORDING else '—',
            c(s.get('rss_compositor'), 1), c(s.get('rss_recorder'), 1), note))
    for n in a.note:
        out.append('\n' + n)
    md = '\n'.join(out)
    print(md)

    settings = dict(x.split('=', 1) for x in a.setting if '=' in x)
    doc = {'bench': 'vkms', 'raw_dir': os.path.abspath(a.raw), 'settings': settings,
           'notes': a.note, 'summary': summary, 'sessions': sessions, 'markdown': md}
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, 'w') as f:
        json.dump(doc, f, indent=1, default=str)
    print('\nJSON: %s' % a.json)
    return 0 if any(s.get('window_wall_s') is not None or s.get('displayed') for s in sessions) else 1


if __name__ == '__main__':
    sys.exit(main())
