#!/usr/bin/env python3
"""Session 37b audit: what phones push against what happened, per hour.

A real `steptweet agent` with `[receive]` on 127.0.0.1 (a free port, token from the environment); each case pushes
the payloads a phone app would send (Health Auto Export `step_count` points, Health Connect webhook records, step-log
lines), then the agent is stopped, `steptweet fetch --now` counts what was received, and the state database's steps
per second are summed per UTC hour and compared with the truth (the steps as they were taken, per minute).

usage: python3 bench/audit37b_push.py BINARY [--keep]
"""
import datetime as dt
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receiver_client import free_port, wait_listening  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
KEEP = "--keep" in sys.argv
TOKEN = "audit37b-token"
UTC = dt.timezone.utc
DAY = dt.datetime(2026, 11, 20, tzinfo=UTC)


def post(port, body):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/ingest", body=json.dumps(body).encode() if not isinstance(body, bytes) else body,
                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data.decode(errors="replace")


def hae_time(t, offset_min):
    local = t.astimezone(dt.timezone(dt.timedelta(minutes=offset_min)))
    sign = "+" if offset_min >= 0 else "-"
    m = abs(offset_min)
    return local.strftime("%Y-%m-%d %H:%M:%S") + f" {sign}{m // 60:02d}{m % 60:02d}"


def hae(points):
    return {"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}


def hc(sent, records):
    return {"timestamp": sent.strftime("%Y-%m-%dT%H:%M:%SZ"), "app_version": "1.4", "steps": records}


def hc_record(start, end, count, origin="com.google.android.apps.fitness", device="Pixel 8"):
    z = "%Y-%m-%dT%H:%M:%SZ"
    return {"count": count, "start_time": start.strftime(z), "end_time": end.strftime(z),
            "metadata": {"data_origin": origin, "device": device}}


class Case:
    def __init__(self, root, name):
        self.name = name
        self.folder = os.path.join(root, name)
        os.makedirs(self.folder)
        self.port = free_port()
        with open(os.path.join(self.folder, "c.toml"), "w") as f:
            f.write(f'[receive]\nlisten = "127.0.0.1:{self.port}"\ntoken_env = "AUDIT_TOKEN"\n'
                    '[schedule]\ninterval = "24h"\nwindow = "1h"\n[text]\ntime_zone = "UTC"\n'
                    '[state]\npath = "state.sqlite"\n')
        self.answers = []

    def __enter__(self):
        self.log = open(os.path.join(self.folder, "agent.log"), "w")
        self.agent = subprocess.Popen([BIN, "agent", "--config", "c.toml"], cwd=self.folder, stdout=self.log,
                                      stderr=self.log, env=dict(os.environ, AUDIT_TOKEN=TOKEN))
        wait_listening(self.port, seconds=60)
        return self

    def push(self, body):
        status, text = post(self.port, body)
        self.answers.append((status, text))
        return status, text

    def __exit__(self, *exc):
        self.agent.send_signal(signal.SIGTERM)
        try:
            self.agent.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.agent.kill()
            self.agent.wait(10)
        self.log.close()

    def fetch(self, now):
        p = subprocess.run([BIN, "fetch", "--config", "c.toml", "--now", now, "--json"], cwd=self.folder,
                           capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout[-600:], p.stderr[-600:]

    def stored_per_hour(self):
        db = sqlite3.connect(os.path.join(self.folder, "state.sqlite"))
        per_hour = defaultdict(int)
        for sec, n in db.execute("select second, count from steps"):
            per_hour[dt.datetime.fromtimestamp(sec, UTC).strftime("%m-%d %H")] += n
        db.close()
        return per_hour


def truth_per_hour(minutes):
    per_hour = defaultdict(int)
    for t, n in minutes.items():
        per_hour[t.strftime("%m-%d %H")] += n
    return per_hour


def report(case, truth, got, note=""):
    hours = sorted(set(truth) | set(got))
    bad = [(h, truth.get(h, 0), got.get(h, 0)) for h in hours if abs(truth.get(h, 0) - got.get(h, 0)) > 1]
    print(f"{case}: truth {sum(truth.values())}, stored {sum(got.values())}; hours off by >1: {len(bad)} of "
          f"{len(hours)} {note}")
    for row in bad[:6]:
        print("   hour (UTC)", row)
    return bad


def walking_minutes(day, spans):
    """{minute start (UTC): steps} for walks (start hour, start minute, minutes, steps per minute)."""
    out = {}
    for h, m, n, rate in spans:
        for i in range(n):
            out[day + dt.timedelta(hours=h, minutes=m + i)] = rate
    return out


def hae_minutes(minutes, offset_min, source, upto=None):
    return [{"date": hae_time(t, offset_min), "qty": n, "source": source}
            for t, n in sorted(minutes.items()) if upto is None or t < upto]


def case_hae_travel(root):
    """London (+0000) to New York (-0500): the same minutes resent in the new offset, with new ones."""
    minutes = walking_minutes(DAY, [(8, 0, 30, 100), (11, 10, 20, 110), (19, 0, 40, 90), (22, 30, 20, 105)])
    with Case(root, "hae-travel") as c:
        c.push(hae(hae_minutes(minutes, 0, "Taro's iPhone", upto=DAY + dt.timedelta(hours=12))))
        c.push(hae(hae_minutes(minutes, -300, "Taro's iPhone")))
    c.fetch("2026-11-21T06:00:00Z")
    return report("HAE minutes, phone flies London -> New York, resends in -0500", truth_per_hour(minutes),
                  c.stored_per_hour())


def case_hae_hourly_halfhour(root):
    """Hourly aggregation, Berlin (+0100) to Delhi (+0530): HealthKit rebuckets on the new local hours."""
    minutes = walking_minutes(DAY, [(2, 10, 30, 100), (6, 40, 40, 100), (14, 0, 30, 100)])

    def buckets(offset_min, upto):
        tz = dt.timezone(dt.timedelta(minutes=offset_min))
        out = defaultdict(int)
        for t, n in minutes.items():
            if t < upto:
                local = t.astimezone(tz)
                out[local.replace(minute=0, second=0)] += n
        return [{"date": hae_time(b, offset_min), "qty": n, "source": "Taro's iPhone"}
                for b, n in sorted(out.items())]

    with Case(root, "hae-hourly") as c:
        c.push(hae(buckets(60, DAY + dt.timedelta(hours=8))))
        c.push(hae(buckets(330, DAY + dt.timedelta(hours=23))))
    c.fetch("2026-11-21T06:00:00Z")
    t, g = truth_per_hour(minutes), c.stored_per_hour()
    print(f"   (hourly buckets spread evenly: day total is the check) truth {sum(t.values())}, stored "
          f"{sum(g.values())}")
    return report("HAE hourly, Berlin -> Delhi, resent on the new local hours", t, g, "(spread)")


def case_hc_daily_travel(root):
    """Health Connect daily mode: today's record from local midnight; the phone moves from +0000 to -0500."""
    minutes = walking_minutes(DAY, [(3, 0, 20, 100), (8, 0, 30, 100), (11, 10, 20, 110), (19, 0, 40, 90)])

    def total(start, end):
        return sum(n for t, n in minutes.items() if start <= t < end)

    with Case(root, "hc-travel") as c:
        s1 = DAY
        c.push(hc(DAY + dt.timedelta(hours=12), [hc_record(s1, DAY + dt.timedelta(hours=12),
                                                           total(s1, DAY + dt.timedelta(hours=12)))]))
        s2 = DAY + dt.timedelta(hours=5)  # midnight in New York
        e2 = DAY + dt.timedelta(hours=23)
        c.push(hc(e2, [hc_record(s2, e2, total(s2, e2))]))
    c.fetch("2026-11-21T06:00:00Z")
    t, g = truth_per_hour(minutes), c.stored_per_hour()
    print(f"   Health Connect daily, +0000 -> -0500 mid-day: truth {sum(t.values())}, stored {sum(g.values())} "
          f"(records spread evenly over their span: the day total is the check)")
    return sum(t.values()), sum(g.values())


def case_two_phones_watch(root):
    """Two phones and a watch for one person (Health Auto Export, not aggregated): one device per minute."""
    minutes = walking_minutes(DAY, [(7, 0, 30, 100), (12, 0, 30, 110), (18, 0, 30, 95)])
    with Case(root, "three-devices") as c:
        c.push(hae(hae_minutes(minutes, 60, "Taro's Apple Watch")))
        # the phones count less (left on a desk for part of a walk), one in the morning, one in the evening
        phone1 = {t: n - 20 for t, n in minutes.items() if t.hour < 13}
        phone2 = {t: n - 10 for t, n in minutes.items() if t.hour >= 12}
        c.push(hae(hae_minutes(phone1, 60, "Taro's iPhone")))
        c.push(hae(hae_minutes(phone2, 60, "Taro's work iPhone")))
    c.fetch("2026-11-21T06:00:00Z")
    return report("HAE phone + work phone + watch over the same walks", truth_per_hour(minutes), c.stored_per_hour())


def case_reinstall(root):
    """A step log writer reinstalled: its history again, with new seq numbers and a new boot_id."""
    minutes = walking_minutes(DAY, [(9, 0, 30, 100), (15, 0, 30, 100)])
    lines = []
    for i, (t, n) in enumerate(sorted(minutes.items())):
        lines.append({"v": 1, "ts": (t + dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": n,
                      "src": "pixel", "boot_id": "b1", "seq": i + 1})
    body1 = ("\n".join(json.dumps(x) for x in lines) + "\n").encode()
    re = [dict(x, seq=x["seq"] + 1000, boot_id="b2") for x in lines]
    body2 = ("\n".join(json.dumps(x) for x in re) + "\n").encode()
    with Case(root, "reinstall") as c:
        c.push(body1)
        c.push(body2)
    c.fetch("2026-11-21T06:00:00Z")
    print("   answers:", [a[1][:160] for a in c.answers])
    return report("step log resent after a reinstall (new seq, new boot_id)", truth_per_hour(minutes),
                  c.stored_per_hour())


def main():
    root = tempfile.mkdtemp(prefix="audit37b-push-")
    try:
        for case in (case_hae_travel, case_hae_hourly_halfhour, case_hc_daily_travel, case_two_phones_watch,
                     case_reinstall, case_seq_restart, case_clock_ahead):
            try:
                case(root)
            except Exception as e:  # one case failing does not hide the others
                print(case.__name__, "failed:", e)
    finally:
        if KEEP:
            print("kept", root)
        else:
            shutil.rmtree(root)


def case_clock_ahead(root):
    """A phone whose clock is 3 h ahead: its minutes are stamped in the agent's future."""
    now = dt.datetime.now(UTC).replace(second=0, microsecond=0)
    minutes = {now - dt.timedelta(minutes=30 - i) + dt.timedelta(hours=3): 100 for i in range(20)}
    with Case(root, "clock-ahead") as c:
        status, text = c.push(hae(hae_minutes(minutes, 0, "Taro's iPhone")))
    print(f"   clock 3 h ahead: answer {status} {text[:200]}")
    for label, at in (("now", now), ("4 h later", now + dt.timedelta(hours=4))):
        code, out, err = c.fetch(at.strftime("%Y-%m-%dT%H:%M:%SZ"))
        print(f"   fetch {label}: exit {code}, stored so far {sum(c.stored_per_hour().values())} of "
              f"{sum(minutes.values())}; {err.strip()[-200:]}")


def case_seq_restart(root):
    """A step log writer reinstalled on the same boot: its seq starts again at 1 for new lines."""
    minutes = walking_minutes(DAY, [(9, 0, 30, 100), (15, 0, 30, 100)])
    walks = [sorted(t for t in minutes if t.hour == h) for h in (9, 15)]
    bodies = []
    for walk in walks:
        lines = [{"v": 1, "ts": (t + dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": minutes[t],
                  "src": "pixel", "boot_id": "b1", "seq": i + 1} for i, t in enumerate(walk)]
        bodies.append(("\n".join(json.dumps(x) for x in lines) + "\n").encode())
    with Case(root, "seq-restart") as c:
        for body in bodies:
            c.push(body)
    c.fetch("2026-11-21T06:00:00Z")
    print("   answers:", [a[1][:160] for a in c.answers])
    got = c.stored_per_hour()
    print(f"step log, seq starting again at 1 on the same boot_id: truth {sum(minutes.values())}, stored "
          f"{sum(got.values())}")


if __name__ == "__main__":
    main()
