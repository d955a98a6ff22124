/// The commented sample that `steptweet init` writes (also contrib/config.sample.toml). It parses as is.
public enum SampleConfiguration {
    public static let text = #"""
        # steptweet configuration (TOML). Unknown keys are errors, so typos are caught.

        [source]
        # A recording or step log to read (relative paths are relative to this file) ...
        path = "walk.csv"
        # ... or a live device instead of path: an IIO step counter or accelerometer, or an evdev accelerometer
        # device = "iio:device0"                 # or "/dev/input/event5"
        # sampling = "poll"                      # "counter" (in_steps_input; default when present), "poll" or "buffer"
        # rate = 50                              # Hz, for an accelerometer (sampled by `steptweet agent` between fetches);
        #                                        # with path: a recording without times (UCI HAR/HAPT raw data)
        # sys_root = "/sys"                      # where sysfs is (a fake tree in tests)
        # dev_root = "/dev"                      # where device nodes are (a fake tree in tests)
        # ... or a phone running phyphox's "Acceleration with g" with remote access allowed, read at each fetch
        # url = "http://192.168.1.23:8080"       # the address phyphox shows (format, start and prefer do not apply)
        # format = "generic-csv"                   # default: detected from the data
        # start = "2026-11-21T10:00:00+09:00"    # wall-clock time of the first sample when the file's times are relative
        #                                        # (without an offset: read in text.time_zone)
        # prefer = "Mi Band 6, Pixel 8"          # step logs with several devices or sources over the same minutes
        #                                        # (Apple Health, Gadgetbridge): these first, by name or alias
        follow = true                            # the file keeps growing: read only what is new at each fetch

        [schedule]
        interval = "minimum"      # "minimum", "never", a duration like "15m", or cron like "0 21 * * *"
        minimum = "10m"           # floor between two scheduled fetches
        deadline = "30s"          # budget of one fetch
        window = "since-last"     # "since-last" (from the last post to now), "1h", "1d" or "7d" (aligned periods)
        post_zero = false         # post windows without steps too
        # jitter = "30s"          # random delay added to scheduled fetches
        # on_walk_end = false     # also fetch when a walk ends (once per walk)
        # settle = "15m"          # how long windows wait for a phone that pushes or is pulled and has gone quiet

        [text]
        template = "{from} 〜 {to} の期間に {device} を持って {steps} 歩 歩きました。 Tweet By Background Fetch"
        date_format = "MM/dd HH:mm:ss"
        time_zone = "Asia/Tokyo"  # IANA name
        device = "iPhone 5s"
        # locale = "en_US_POSIX"  # number grouping of {steps} and the other counts ("en_US" writes 1,234), and the
        #                         # language of the chart's words and alt text: "ja…" Japanese, else English (unset:
        #                         # the template's, Japanese for the Japanese presets)
        # preset = "daily"        # a preset instead of template (remove it): "seed", "english", "daily", "weekly",
        #                         # "daily-en", "weekly-en"; daily wants window = "1d", weekly "7d"
        # goal = 8000             # steps a day: a goal line on the chart of a window of a day or more
        # chart_style = "light"   # the chart posted by targets with image = "chart": "light" or "dark"

        # One table per target; with none, texts go to standard output. Secrets are never inline: a secret key is
        # given as KEY_env (the name of an environment variable holding it) or KEY_file (a file holding it).
        # [[publish]]
        # kind = "webhook"                      # the target: one of the kinds below
        # url_env = "STEPTWEET_WEBHOOK_URL"     # the webhook's URL, from this environment variable
        # name = "webhook"                      # in logs and the outbox; default: the kind (kind-2, kind-3 for repeats)
        # shorten = false                       # cut a text over the target's limit with "…" instead of refusing it
        # image = "chart"                       # post the window's chart with its alt text (not slack or stdout)
        # image_required = true                 # false: a chart that fails to upload leaves the text posted alone
        # The keys of each kind (* required; token, password, url and the x keys are secrets: KEY_env or KEY_file):
        #   mastodon  base_url*, token*, visibility (public, unlisted, private, direct), language, max_characters
        #   misskey   base_url*, token*, visibility (public, home, followers), cw, max_characters, resend_unconfirmed
        #   x         base_url (https://api.x.com); OAuth 1.0a: consumer_key*, consumer_secret*, token*, token_secret*;
        #             OAuth 2.0: client_id* (text, not a secret), refresh_token*, client_secret, token
        #   bluesky   base_url (https://bsky.social), identifier* (handle or DID), password* (an app password), language
        #   matrix    base_url*, token*, room_id* (!id:server), msgtype (m.notice or m.text)
        #   discord   url* (the webhook URL), resend_unconfirmed
        #   slack     url* (the incoming-webhook URL), resend_unconfirmed
        #   ntfy      base_url (https://ntfy.sh), topic*, token or username with password, title, priority (1-5),
        #             tags (an array of strings), resend_unconfirmed
        #   webhook   url*, body_template (JSON with {{text}}, {{idempotency_key}}, {{window_start}}, {{window_end}}),
        #             headers (a table of strings), length_rule (x, mastodon or bluesky)
        #   file      path* (one JSON line per post; relative to this file)
        #   stdout    no keys

        # [detect]
        # sensitivity = "normal"  # "slow" for people who walk slowly (older people, recovery, a walker): counts walks
        #                         # of 30-50 steps a minute, and more hand activity as steps

        [state]
        # path = "~/.local/state/steptweet/state.sqlite"   # default: $XDG_STATE_HOME/steptweet/state.sqlite

        # Silent pushes: POST http://127.0.0.1:PORT/push with "Authorization: Bearer TOKEN" and {"aps":{"content-available":1}}
        # [push]
        # port = 8787
        # token_env = "STEPTWEET_PUSH_TOKEN"   # or token_file
        # period = "1m"           # at most one push-triggered fetch per period

        # The receiver: phones push their steps to POST http://HOST:PORT/ingest with "Authorization: Bearer TOKEN"
        # (Health Auto Export, Sensor Logger, Health Connect webhook apps, OwnTracks, steplog lines), or /ingest/TOKEN for apps
        # that can only set a URL. With [receive], [source] is optional.
        # [receive]
        # listen = "127.0.0.1:8788"               # host:port; "0.0.0.0:8788" on every interface (put TLS in front)
        # token_env = "STEPTWEET_RECEIVE_TOKEN"   # or token_file; required
        # max_body = 8388608                      # bytes, as sent and inflated (gzip bodies are taken)
        # max_header = 16384                      # bytes of request line and headers; more: 431
        # idle_timeout = "15s"                    # to bring a request's head in full; then closed
        # read_timeout = "60s"                    # to bring its body in full, from the head; then closed
        # max_connections = 2048                  # served at once; more wait (each is a file descriptor)
        # reorder = "30s"                         # how late a Sensor Logger message may come and be counted in order
        # Where phones overlap (iPhone and Watch), one counts per minute: the one with more steps, or the first of
        # source.prefer (a [source] table may hold only that key):  [source]  prefer = "Watch, iPhone"
        """#
}
