"""The league: one process, on any machine, follows every table on the MQTT broker.

host.league.follower (subscribe, check, keep, ask again for what is missing), host.league.store
(its own SQLite store, each table's entry kept once), host.league.standings (pure: per game
and across the tournament), host.league.web (the standings page, on the phone page's stack).
"""
