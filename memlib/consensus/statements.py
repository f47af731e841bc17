"""What a fragment states, read the way people write it (no language model): the quantities
it gives and what each measures, the names it says are in use, whether it denies what it
says, where it holds (a scope), and whether it reports a change ("moved to", "as of March",
"now", or a verb of change where the grammar says it happened: "was cut to 30 days", "we
removed", "raised the weekly cap", "From next week"; not "nobody changed it", "increased
latency" or "open from 9 to 5"). consensus/conflicts.py compares two statements with this.

Quantities: a number (digits, or a word such as "five" or "half a") with its unit, units of one
dimension made one ("5 min" is 300 s, "two weeks" 14 days, "12k" 12,000, "$48,200"), marked
approximate after "about", "around", "~" or "roughly", and denied after "not"; dates in English
and ISO forms, with or without a year, and a month of a year ("in January 2027", agreeing with any
of its days); a time of day ("01:00 UTC", "9:30", "2pm", "noon", a
cron schedule's "0 3 * * *", in UTC unless its line names a zone) in minutes after midnight, of
its zone when it names one (times of two zones are not compared), about when a schedule said if
read off a clock ("started 02:31": within a quarter hour), and none when it opens or closes a
range ("08:00-20:00", "between 7 and 9 pm"); the days of the week a schedule names ("on
Thursdays", "every Tuesday and Thursday", "Thu 10:00", "Mon-Fri"), not a day that dates an
event ("last Friday", "since Monday", "the first Monday"): two schedules on days that never
meet disagree; a date right after "not" is denied ("21 March, not the 14th"). A number with no
unit counts the noun after it ("3 nodes", "a 10-character password", "a single approval"; a
time, a try and an attempt are one noun, as are a char and a character), or the plural after
that ("50 database connections"); "4 business hours" is 4 hours, "one-week" a week; a span said
in parts of its unit is that share of it ("a quarter of an hour" is 15 minutes, "an hour and a
half" 90, "two and a half days", "a half-hour call"); "three
nines" is 99.9 %; "41M" is 41 million, and "got 429s" are HTTP statuses, not seconds. A count per
span of time is a rate, per minute ("100 requests per minute", "600/min", "240 calls in a
minute", "100 rpm", and "minute=600" where the line speaks of a rate limit); payment terms are
days ("net 30"). A
setting as configuration and bot output write it is read by its key: "STRIPE_TIMEOUT_MS=10000"
is 10 s, a TTL or timeout without a unit is in seconds ("ttl 86400"), a rate of at most 1 is a
share ("traces_sample_rate=0.05": 5 %), "25m" of a size is 25 MB, "max_attempts=5" is at most
5 attempts (a rule), "net45" is 45 days, and a setting set false or off denies what its key
names ("2fa_requirement_enabled=false"). How often is a period of its own ("every 6 hours",
"4x a day", "twice a week", "daily", "quarterly", "every other week"): it is not compared with
how long ("within a minute"). A
number inside a name ("p95", "React 19", "iOS 16", "2.3 release") is not a quantity but a
qualifier: two statements that qualify their numbers differently ("p95" against "p99")
measure different things; a sentence opening with a verb in the past or a function word
before a number counts ("Saw 5 retry attempts"); a name's number is its
version, and "and later", "requires", "minimum" make it the lowest that will do. A decimal
followed by its unit ("1.5 s", "99.9%") is a quantity. A number after "under", "within", "at
most", "up to" or "max" is an upper bound, after "at least" or "min" a lower one (not in a
clause saying when a rule applies: "can't merge if coverage is below 75%"): a statement
giving one is a rule (`target`), and what was seen breaks it only from beyond the bound
(conflicts.py); "within" a span in such a clause is a timeout ("if the primary doesn't ack
within 30 minutes it goes to the secondary": `timeout`), one amount of a setting, compared as a value; "goal", "should" or "SLO" make it an aim (`goal`), which may be missed without
anyone being wrong. A number after "over" or "above" is no amount: it says which things a
rule is for or over what span ("uploads over 5 GB fail", "retried 3 times over 5 days"). A
quantity holds where its own clause
says ("iOS ... 99.7%, Android lags behind": iOS); a scope has one name ("prod" is
production, "overnight" is night, "customers" a customer's) and may hold another (mobile holds iOS and Android), and a hyphenated name's
head scopes it ("prod-1"). A name is in use after a word that chooses ("runs on", "via",
"uses"), past a hyphenated modifier ("the self-hosted GitHub runners"), and past a
lower-case word before it after a verb that chooses ("uses the new Redis": Redis); after
"not" ("not on EKS"), "instead of", a move away from it or one said never made ("never moved
to EKS", which reports no change), it is rejected. The words of a clause that denies or
retires, in any case, are kept ("no gradle files", "the sentry DSN in .env is dead": `dropped`),
so a name another statement uses, said there, is given up. A failure said to happen "again"
recurs and reports no change ("pipeline failed on the Jenkins agent again"). Whether it denies
is read from "not", "n't", "never", "disabled" ... (not "not until" or "not before", which
say when) and "off" unless a verb's particle ("kicks off", "signed off") or after a move
("moved our images off Docker Hub": a change, away from what it names); what it denies is
compared as word stems (Snowball), so "no sampling" denies "are sampled"; a host's or a file's
name says its words as well ("billing.acme.io": billing). "since" reports a change
when it dates one ("since the upgrade", "since we hired in Madrid"), not when it gives a
reason ("since we host the media pipeline on GCP": a pronoun and a verb in the present). A
statement that ends by setting what it names apart from a thing of its kind ("..., not the
paging tool", "outside the cluster") names no rival choice (`outside`).

What it cannot read: a day of the week said once for an event against a schedule ("demo on
Friday" against "demos are on Thursdays": the first is read as a schedule too), units it
does not know, numbers written in words beyond the common ones, a quantity
and its qualifier far apart in a long sentence, a limit against a value within it that was
meant to be the limit ("at most 50 connections" against "the pool is 20"), a bound after the
noun ("16 characters minimum"), a rule for the things over an amount against one of them
("anything over $2,500 needs finance" against "$4,200 approved with no finance step"), the
same count under two nouns ("2 required reviews" against "one approval"), irony.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass, field
from datetime import date

import snowballstemmer

from memlib.consensus.patterns import rule

MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
# English words that say nothing of a statement's subject (its overlap with another)
STOP_WORDS = frozenset("""a an the of for on in at to is are was were be been its it we our and or as by with this
that has have had about from into over than then there their they them he she you your i me my not no so if but""".split())

WORD_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
                "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
                "a": 1, "an": 1, "half": 0.5, "a couple of": 2, "a dozen": 12, "a single": 1}
# unit -> (dimension, factor to the dimension's base: ms, MB, percent, dollars)
UNITS = {
    "ms": ("time", 1.0), "msec": ("time", 1.0), "millisecond": ("time", 1.0),
    "s": ("time", 1e3), "sec": ("time", 1e3), "secs": ("time", 1e3), "second": ("time", 1e3),
    "m": ("time", 6e4), "min": ("time", 6e4), "mins": ("time", 6e4), "minute": ("time", 6e4),
    "h": ("time", 3.6e6), "hr": ("time", 3.6e6), "hrs": ("time", 3.6e6), "hour": ("time", 3.6e6),
    "d": ("time", 8.64e7), "day": ("time", 8.64e7), "w": ("time", 6.048e8), "wk": ("time", 6.048e8),
    "week": ("time", 6.048e8), "fortnight": ("time", 1.2096e9), "month": ("time", 2.592e9),
    "y": ("time", 3.1536e10), "yr": ("time", 3.1536e10), "year": ("time", 3.1536e10),
    "kb": ("bytes", 1 / 1024), "mb": ("bytes", 1.0), "gb": ("bytes", 1024.0), "tb": ("bytes", 1024.0 ** 2),
    "%": ("percent", 1.0), "percent": ("percent", 1.0),
    "$": ("money", 1.0), "dollar": ("money", 1.0), "usd": ("money", 1.0), "eur": ("money", 1.0),
    "euro": ("money", 1.0), "€": ("money", 1.0),
}
APPROXIMATE = ("about", "around", "roughly", "approximately", "approx", "~", "nearly", "almost", "circa", "some")
DENIED = ("not", "never", "isn't", "aren't", "wasn't", "no")
NEGATIONS = frozenset({"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor",
                       "disabled", "inactive", "missing", "cannot", "can't", "won't"})
DENIERS = NEGATIONS | {"off"}  # words that deny, never what a statement is about
_NEGATED = rule("negated", r"\b(?:not|no|never|without|none|nobody|nothing|cannot|\w+n't|disabled|inactive|missing)\b",
                      re.I,
        reads=("We never deploy on Fridays",), skips=("We deploy on Fridays",))
_NOT_UNTIL = rule("not until", r"\b(?:not|n't)\s+(?:until|till|before|earlier than)\b", re.I,
        reads=("the release is not until the 14th",),
        skips=("the freeze lasts until the 14th",))  # says when: no denial
# "off" denies ("turned off", "flag: off", "off for everyone") except as the particle of a verb
# that means something else with it ("kicks off", "signed off", "paid off", "drop-off")
_OFF = rule("off", r"(?:(\w+)[\s-]+)?\boff\b", re.I,
        reads=("Hotfixes skip the QA sign-off.",),
        skips=("release 4.12 went to prod on Friday without anyone from QA looking at it",))
_PARTICLE_OFF = rule("particle off", r"(?:kick|sign|start|took|tak|pa[iy]|cut|log|drop|show|tip|head|wrap|round|writ|wrot|call|"
                           r"la[iy]|trail|tail|tick|top|finish|eas|level|back|hold|held|hand|spin|spun|split|goof|"
                           r"nod|doz|fend|ward|seal|cord|wip|laugh|brush|shrug|tee|teed|bump|knock|jump|fight|"
                           r"fought|wear|wore|lift|blast|set)", re.I,
        reads=("kicks", "signed", "paid"), skips=("turned", "switched"))  # the word before "off"
_MOVED_OFF = rule("moved off", r"\b(?:mov(?:ed|ing)|migrat(?:ed|ing|e))\s+(?:[\w'-]+\s+){0,3}off\b", re.I,
        reads=("migrated log shipping off Papertrail onto Better Stack",),
        skips=("Logs go to Papertrail.",))  # "moved our images off"
_STOPS = ".;,!?"  # what ends a clause
_CLAUSE = rule("clause", rf"[^{_STOPS}]+",
        reads=("Cache TTL is 60 s",), skips=("...",))
_WORD_CLAUSE = rule("word clause", rf"(?:[^{_STOPS}]|\.(?=\w))+",
        reads=("Cache TTL is 60 s",), skips=("...",))  # a clause, "jest.config.js" and ".env" whole in it
_NUMBER_CLAUSE = rule("number clause", rf"(?:[^{_STOPS}]|(?<=\d)[.,](?=\d))+",
        reads=("Cache TTL is 60 s",), skips=("...",))  # a clause, "99.7%" whole in it
# "since" that gives a reason, not a time: a pronoun and a verb in the present ("since we host the
# media pipeline on GCP", "since it's cheaper"); "since we hired in Madrid" dates a change
_BECAUSE = (r"\s+(?:(?:we|they|you|i|it|he|she|there)\s+(?!(?:was|were|had|got|went|came|began|became|took|made|"
            r"left|built|ran|did|\w+ed)\b)[a-z]+|(?:it|that|there|we|they|you)'(?:s|re))\b")
# verbs that say a thing was made otherwise, in the past: an amount ("raised", "cut"), a choice
# ("swapped", "moved"), a presence ("added", "removed", "enabled"). Such a verb reports a change
# where the grammar says it happened: after "was", "got", "has" or "have" ("was cut to 30 days",
# "has moved"), after a person ("we removed", "they switched"), before what it was done to
# ("raised the weekly cap", "added two data nodes", "turned on a rate limit"), or before "to",
# "from" or "off" a few words on ("pushed the kickoff back to Friday"). "increased latency" and
# "the reduced plan" say no change. A day said after "from" starts a change only where its clause
# starts ("From Monday, standups are at 10", not "restored from Monday night's snapshot")
_CHANGED = (r"raised|lowered|increased|decreased|reduced|extended|shortened|expanded|trimmed|tightened|relaxed|"
            r"bumped|dropped|moved|shifted|changed|switched|swapped|converted|resized|downsized|upsized|renamed|"
            r"removed|enabled|disabled|introduced|retired|turned (?:on|off)|switched (?:on|off)|"
            r"added(?=\s+(?:a|an|another|more|new|\d[\d.,]*|one|two|three|four|five|six|seven|eight|nine|ten)\b)")
_WHAT = (r"the|a|an|our|their|its|his|her|my|your|this|that|these|those|it|them|all|every|both|\d[\d.,]*|one|two|"
         r"three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred")
_NEXT = r"(?:next|this|coming) (?:week|month|quarter|year|sprint|release|term|season|cycle)"
_DAYS_AHEAD = (_NEXT + r"|today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|"
               r"march|april|may|june|july|august|september|october|november|december")
# words that report a change: the statement supersedes an older one, it does not contradict it
CHANGES = rule("changes",
    r"\b((?<!for )(?<!right )(?<!just )(?<!until )(?<!by )now|nowadays|these days|anymore|no longer|as of|"
    r"since(?!" + _BECAUSE + r")|"
    r"switched (?:to|from|over)|moved (?:to|from|over|off)|migrated|upgraded|"
    r"downgraded|replaced|changed|went from|dropped to|got down to|got up to|bumped|raised to|lowered to|"
    r"reduced to|increased to|decommissioned|retired|from this week|from now on|"
    r"from (?!\d|" + _DAYS_AHEAD + r")[\w.+#-]+ to|"
    r"switch(?:ed)? (?:from|to)|fixed|again|slipped|postponed|rescheduled|pushed back|delayed (?:to|until|by)|"
    r"doubled|halved|tripled|(?:went|gone|come|came) (?:up|down)|swapped|going forward|"
    r"(?:starting|effective) (?:\d|" + _DAYS_AHEAD + r"|immediately|on|from)|"
    r"from " + _NEXT + r"|(?:^|(?<=[,.;:!?] ))from (?:" + _DAYS_AHEAD + r")\w*"
    r"(?![^,.;]*\b(?:to|until|till|through|thru)\s+(?:" + _DAYS_AHEAD + r")\w*\b)|"
    r"(?:pushed|cut|added|" + _CHANGED + r")(?:\s+[\w.'-]+){1,6}?\s+(?:to|from|off)\s|"
    r"(?:was|were|got|gets|get|has|have|had|'ve)\s+(?:(?:been|just|finally|also|already|since|recently)\s+)*"
    r"(?:cut|updated|pushed|postponed|added|" + _CHANGED + r")|"
    r"(?:we|they|i|he|she|you|someone|somebody)\s+(?:(?:just|finally|also|already|recently)\s+)*(?:" + _CHANGED
    + r")|(?:" + _CHANGED + r")\s+(?=(?:" + _WHAT + r")\b))\b", re.I,
        reads=("Weekly sync is Wednesdays now.",), skips=("The team sync is on Tuesdays at 10:00.",))
# a change said not to have happened: "they were never moved to EKS", "hasn't been migrated yet"
_NOT_DONE = rule("not done", r"\b(?:not|never|\w+n't|nobody|no one|nothing)\s+(?:(?:been|yet|ever|actually|really)\s+)?$",
                       re.I,
        reads=("the index was never ",), skips=("the index was ",))
# a failure said to happen again recurs; it changes nothing ("pipeline failed on the Jenkins
# agent again"; "can log in again" does)
_RECURS = rule("recurs", r"\b(?:fail(?:ed|s)?|broke|crash(?:ed|es)?|errored|timed out|flaked|missed|forgot)\b"
                     r"(?=.*\bagain\b)", re.I,
        reads=("pipeline failed on the Jenkins agent again, build #8812",), skips=("CI runs on GitHub Actions.",))


def _clause_of(text: str, m: re.Match) -> str:
    """The clause of `text` that holds the match `m`."""
    start = max(text.rfind(c, 0, m.start()) for c in _STOPS) + 1
    ends = [i for i in (text.find(c, m.end()) for c in _STOPS) if i != -1]
    return text[start:min(ends, default=len(text))]


# what a name was when it is used no more ("RabbitMQ was decommissioned"; REJECT)
_RETIRED = r"decommissioned|retired|dropped|removed"
# what a clause retires: "the sentry DSN in .env is dead", "jest.config.js was deleted", "the
# Fivetran trial ended"
_RETIRES = rule("retires", rf"\b(?:{_RETIRED}|dead|deleted|gone|deprecated|unused|abandoned|ended|shut down|turned off|"
                      r"switched off)\b", re.I,
        reads=("Kong is gone, the gateway is Envoy now",), skips=("The API gateway is Kong.",))
# a plan or an aim: what it bounds may be missed without anyone being wrong ("Goal: p95 under 200 ms")
_AIMS = r"goal|target|aim|objective|should|commit to|alert when|SLA|SLO"
GOALS = rule("goals", rf"\b(?:{_AIMS})\b", re.I,
        reads=("The search SLO is 99.5%.",), skips=("backup retention: 30d",))
# a requirement or a plan, not a measurement: an aim, a rule, or a bound before a number
TARGETS = rule("targets", rf"\b(?:{_AIMS}|must|needs? to|at least|at most|no more than|"
                     r"(?:under|below|(?P<within>within)) (?:\$|~)?\d)", re.I,
        reads=("The search SLO is 99.5%.",), skips=("backup retention: 30d",))
# a bound said just before its number: "under 200 ms", "at least 12", "up to $5,000", "max retries 3"
_BOUNDS = {"max": rule("at most before a number", r"(?:\b(?:under|below|within|at most|no more than|up to|less than|fewer than|"
                             r"max(?:imum)?(?:\s+[a-z_]+){0,2}\s*[=:]?)|<=?)\s*(?:\$|€|~)?$",
        reads=("keep it under $", "p99 below ",), skips=("keep it at $",)),
           "min": rule("at least before a number", r"(?:\b(?:at least|(?<!/)min(?:imum)?(?:\s+[a-z_]+){0,2}\s*[=:]?)|>=?)\s*(?:\$|€)?$",
        reads=("tfc workspaces: 31, last run infra-prod 12 min ago",),
        skips=("Terraform state is stored in an S3 bucket with DynamoDB locking.",))}
# a number in a clause that says when a rule applies bounds nothing it states ("can't merge if
# coverage is below 75%": the rule is the other way round)
_CONDITION = rule("condition", r"\b(?:if|when|whenever|unless|once)\b", re.I,
        reads=("PRs can't merge if coverage is below 75%.",),
        skips=("codecov.yml: project target 75%, patch target 60%",))
# a number after "over" or "above" is no amount a statement gives: it says which things a rule is
# for ("refunds over $200 need a second approver") or over what span ("retried 3 times over 5
# days", "99.9% over 30 days"), not what the things are
_SPAN = rule("span", r"\b(?:over|above)\s*(?:\$|€|~)?$",
        reads=("refunds over $", "retried 3 times over ",), skips=("refunds of $",))
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_OF = {day[:3]: n for n, day in enumerate(WEEKDAYS)}  # "thu" (of "Thursdays", "Thu", "Thurs"): 3
# the days of the week a schedule names: "on Thursdays", "every Tuesday and Thursday", "Thu 10:00",
# "Mon-Fri"; not a day that dates an event ("last Friday", "since Monday", "until Monday") or
# names one in a month ("the first Monday")
_DAY = rule("day", r"\b(?:(?P<full>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
                  r"|(?P<short>Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun))\b(?!'s)", re.I,
        reads=("We deploy on Fridays",), skips=("backup retention: 30d",))
_DATING = rule("dating", r"\b(?:last|this|next|since|until|till|by|before|after|past|coming|first|second|third|fourth)\s+$",
                     re.I,
        reads=("moved to next ",), skips=("moved to ",))
_DAY_RANGE = rule("day range", r"^\s*(?:-|–|to|through|thru)\s*$", re.I,
        reads=(" - ", " to ",), skips=(" and ",))
PART = rule("part", r"\b(alone|of which|mostly|most of|part of|only for|excluding|including)\b", re.I,
        reads=("EC2 alone was ~31k in October",), skips=("The AWS bill for October was $48,200.",))
# the scopes a statement may be said of, by what they divide: where it runs, on what, for whom,
# seen by whom, when (the week's days, the day's parts), in which region, for which role ("Partner
# keys get 1,000 requests a minute" against "100 per key"). Two statements whose scopes differ within one division
# are apart whatever else they share ("production deploys on weekends" and "staging deploys on
# weekends": the weekend they share is another division; `apart`)
DIVISIONS = {"environment": ("staging", "production", "development", "qa", "sandbox"),
             "platform": ("android", "ios", "web", "desktop", "mobile"), "tier": ("enterprise", "free"),
             "exposure": ("internal", "external", "public", "private"), "time": ("weekend", "weekday"),
             "region": ("eu", "us"), "daypart": ("daytime", "night"),
             "role": ("admin", "staff", "customer", "guest", "contractor", "employee", "intern", "partner")}
DIVISION = {scope: division for division, scopes in DIVISIONS.items() for scope in scopes}
# a word that scopes a statement -> the scope it names ("prod" is production)
SCOPES = {scope: scope for scope in DIVISION} | {"prod": "production", "dev": "development", "weekends": "weekend",
                                                 "weekdays": "weekday", "nights": "night", "nighttime": "night",
                                                 "overnight": "night", "admins": "admin", "customers": "customer",
                                                 "guests": "guest", "contractors": "contractor",
                                                 "employees": "employee", "interns": "intern", "partners": "partner"}
WITHIN = {"ios": "mobile", "android": "mobile"}  # a scope -> the scope that holds it ("all mobile" holds on iOS)
_NAME_HEAD = r"(?:[A-Z]|\d+[A-Z](?=[a-z]))"  # how a name begins: "Redis", "1Password"
_NAME_START = rule("name start", _NAME_HEAD,
        reads=("Cache TTL is 60 s",), skips=("backup retention: 30d",))
CHOICE = rule("choice", 
    r"\b(?:uses?|using|used|on|in|with|via|through|by|to|runs on|stores? \w+ in|lives? in|goes through|"
    r"gets?|got|receives?|received|has|have|had|"
    r"go through|is|are|picked|chose|chosen|adopted|relies on|powered by|built on|built with|from|out of|"
    r"hashed with|switched to|moved to|migrated to|upgraded to|run|runs|ran|pay|pays|paid|against)\s+"
    r"(?:(?:the|a|an|our|their|its|your)\s+(?:[a-z][\w-]*-[\w-]+\s+)?)?"  # "the self-hosted GitHub runners"
    r"(" + _NAME_HEAD + r"[\w.+#-]*(?:\s[A-Z0-9][\w.+#-]*)?)",
        reads=("CI is on GitLab CI.",), skips=("backup retention: 30d",))
# a name in any case after a verb that can only choose ("uses nginx", "went with gRPC"), and
# the name a sentence opens with before "is the" ("Redis is the cache behind ...")
CHOSEN = rule("chosen", r"\b(?:uses|using|picked|chose|chosen|adopted|went with|go with|settled on|relies on|"
                    r"switched to|migrated to|standardi[sz]ed on)\s+(?:the\s+)?(?:(?-i:[a-z][\w-]*)\s+(?=(?-i:[A-Z])))?"
                    r"([\w][\w.+#-]*[\w+#]|\w)", re.I,
        reads=("The frontend uses Vue",), skips=("backup retention: 30d",))
# a statement that sets what it names apart from a thing of its kind, named in lower case: "Customer
# support escalations come through Zendesk, not the paging tool", "The Android app builds on
# Bitrise, not in our main CI", "Batch jobs run on AWS Batch, outside the cluster"; said last. Not
# "not a Lambda" or "not AWS": names it rejects
OUTSIDE = rule("outside", r"\b(?:not\s+(?:(?:by|in|on|through|via|from|with|part of)\s+)?(?:(?:the|a|an|our|any)\s+"
                     r"(?:[a-z][\w-]*\s+){0,2}(?:[a-z][\w-]*|[A-Z]{2,5}))|outside (?:the|our) [a-z][\w-]*)\W*$",
        reads=("Our review SLA is 4 hours, not a day.",),
        skips=("Reviews should be picked up within one business day.",))
IS_THE = rule("opens with a name that is the", r"^\W*([A-Z][\w.+#-]*|[a-z]+[A-Z][\w.+#-]*)\s+(?:is|are)\s+(?:the|our)\s",
        reads=("Postmark is the provider for receipts and password resets.",),
        skips=("Transactional email goes through SendGrid.",))
REJECT = rule("reject", 
    r"\b(?:not(?:\s+(?:by|on|in|through|via|with|from))?|instead of|rather than|replacing|decommissioned|retired|"
    r"(?:moved|switched|migrated|changed|went)\s+(?:\w+\s+){0,3}(?:from|off)|"
    r"(?:never|not|n't)\s+(?:\w+\s+)?(?:used?|using|picked|chose|run on|relied on|moved to|migrated to|switched to))"
    r"\s+(?:the\s+|a\s+|an\s+)?"
    r"([A-Z][\w.+#'-]*)|([A-Z][\w.+#'-]*)\s+(?:was|were|is no longer|got|has been)\s+"
    rf"(?:{_RETIRED}|replaced)",
        reads=("The docs site is built by Netlify, not by CI.",), skips=("CI runs on GitHub Actions.",))

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))


def month(name: str) -> int | None:
    """A month's number from its name as a case-blind pattern matched it ("ſept": re.I folds
    the long s)."""
    return MONTHS.get(name.casefold())


# (pattern, its (year, month, day), what an ASCII text must hold, lower-cased, to match it)
_DATES = [
    (rule("iso date", r"\b(\d{4})-(\d{2})-(\d{2})\b",
        reads=("Release calendar: mobile 4.0 goes out 2026-03-21.",),
        skips=("Mobile app 4.0 ships to the stores on March 14.",)), lambda m: (int(m[1]), int(m[2]), int(m[3])), ("-",)),
    (rule("month and day", rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I,
        reads=("dark mode GA date: Feb 3",), skips=("Dark mode ships to everyone on 3 February.",)),
     lambda m: (int(m[3]) if m[3] else None, month(m[1]), int(m[2])), tuple(MONTHS)),
    (rule("day of month", rf"\b(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?(?:,?\s+(\d{{4}}))?\b", re.I,
        reads=("sprint 41 runs 3 Nov - 14 Nov",), skips=("Sprints are two weeks long.",)),
     lambda m: (int(m[3]) if m[3] else None, month(m[2]), int(m[1])), tuple(MONTHS)),
    (rule("month of a year", rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.I,
        reads=("payroll batch scheduled: 25 Nov 2026",),
        skips=("Salaries are paid on the 25th of each month.",)), lambda m: (int(m[2]), month(m[1]), None),
     tuple(MONTHS)),  # "in January 2027": a month of a year
    (rule("the nth", r"\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I,
        reads=("Contractor invoices are paid on the 10th.",),
        skips=("Payroll runs on the last working day of the month.",)), lambda m: (None, None, int(m[1])), ("the",)),
]
# a number in digits ("1,204", "2.5"), and the letter after it that multiplies it ("12k", "41M":
# thousands, millions; "M" in capitals only, "5m" is five minutes)
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_THOUSANDS = {"k": 1e3, "K": 1e3, "M": 1e6}
_MULTIPLIER = r"(?P<k>k\b|(?-i:M)\b)?"
_SPANS = "second|minute|hour|day|week|month|year"  # the units a span of time is said in, as words
_COUNT_WORD = "|".join(w for w in WORD_NUMBERS if " " not in w and w not in ("a", "an", "half"))
_WORD_NUMBER = "|".join(sorted((re.escape(w) for w in WORD_NUMBERS), key=len, reverse=True))
_QUANTITY = rule("quantity", 
    r"(?P<pre>\$|€)?(?P<num>" + _DIGITS + r"|\b(?:" + _WORD_NUMBER + r")\b)" + _MULTIPLIER +
    r"(?:(?<=\d)-(?=[A-Za-z])|-(?=(?:" + _SPANS + r")\b)|\s*)"
    r"(?:(?:business|working|calendar|full|straight|consecutive)\s+(?=(?:hour|day|week)s?\b))?"
    r"(?P<unit>%|(?!(?:" + _COUNT_WORD + r")\b)[A-Za-z]+)?", re.I,
        reads=("Cache TTL is 60 s",), skips=("The frontend uses Vue",))  # ("a three-month notice": no "a" of "three")
# how often: "every 6 hours", "4x a day", "twice a week", "daily" (a period, its own dimension:
# "rebuilt every 6 hours" and "shows up within a minute" measure two things)
_TIME_UNIT = r"(?P<unit>" + "|".join(sorted((u for u, (kind, _) in UNITS.items() if kind == "time"), key=len,
                                              reverse=True)) + r")s?"
_PERIODS = [
    (rule("every span", r"\bevery\s+(?:(?P<num>\d+(?:\.\d+)?|" + _WORD_NUMBER + r")\s+)?" + _TIME_UNIT + r"\b", re.I,
        reads=("On-call rotates every two weeks.",), skips=("oncall schedule: 14-day shifts, handover on Mondays",)),
     lambda m: _number(m["num"]) if m["num"] else 1.0),
    (rule("times a span", r"(?:\b(?P<num>\d+(?:\.\d+)?|" + _WORD_NUMBER + r")\s*(?:x|times)|\b(?P<word>once|twice|thrice))"
                r"\s+(?:a|an|per|each)\s+" + _TIME_UNIT + r"\b", re.I,
        reads=("The cactus only needs water once a month.",),
        skips=("The fern in the living room gets watered every Wednesday.",)),
     lambda m: 1 / (_number(m["num"]) if m["num"] else ("once", "twice", "thrice").index(m["word"].casefold()) + 1)),
    (rule("once a span (-ly)", r"\b(?<!half-)(?P<unit>hour|dai|night|week|fortnight|month|year)ly\b", re.I,
        reads=("Weekly sync is Wednesdays now.",), skips=("The team sync is on Tuesdays at 10:00.",)), lambda m: 1.0),
    (rule("every other span", r"\bevery\s+other\s+" + _TIME_UNIT + r"\b", re.I,
        reads=("standup every other week",), skips=("standup every week",)), lambda m: 2.0),  # "every other week"
    (rule("once a quarter or year (-ly)", r"\b(?P<unit>quarter|annual|semi-?annual|half-?year)ly\b(?=\s*(?:[.,;:!?)]|$|and\b|or\b))", re.I,
        reads=("Mileage claims go through a separate form and are due quarterly.",),
        skips=("Expense reports are due by the 5th of the following month.",)),
     lambda m: _ADVERB_TIMES.get(_adverb(m), 1.0)),  # "reviewed quarterly"
]
# an adverb's stem (`_adverb`) -> its unit, and how many of them one period is
_ADVERB_UNITS = {"dai": "day", "night": "day", "quarter": "month", "annual": "year", "semiannual": "month",
                 "halfyear": "month"}
_ADVERB_TIMES = {"quarter": 3.0, "semiannual": 6.0, "halfyear": 6.0}
CLOCK_SLACK = 15  # minutes an approximate time of day may be off: the quarter hour people round to
# a time of day: "01:00 UTC", "9:30", "2pm", "11 pm", "noon"; with its zone, if it names one
_ZONE = r"(?:\s*(?P<zone>utc|gmt|local time|(?-i:CES?T|BST|[ECMP][SD]?T|IST|JST|[A-Z][a-z]+ time)))?"
_CLOCK = rule("clock", r"(?<![\w:./-])(?:(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::[0-5]\d)?"
                    r"(?:\s*(?P<half>[ap]\.?m\b\.?))?|(?P<h12>1[0-2]|0?[1-9])\s*(?P<half12>[ap]\.?m\b\.?)"
                    r"|(?P<word>noon|midnight)\b)" + _ZONE, re.I,
        reads=("The team standup is at 9:30.",), skips=("backup retention: 30d",))
# a cron schedule ("0 3 * * *", "30 1 * * 1-5"): a minute and an hour that are plain numbers, then
# the day of the month, the month and the day of the week. It runs in the zone its line names, else
# in UTC, the zone schedulers (cron on servers, Airflow, Kubernetes CronJobs) keep by default
_CRON = rule("cron", r"(?<![\w*/.:-])(?P<m>[0-5]?\d)\s+(?P<h>[01]?\d|2[0-3])\s+(?P<dom>\*|[\d,/-]+)\s+"
                   r"(?P<month>\*|[\d,/-]+)\s+(?P<dow>\*|[\d,/-]+|[a-z]{3}(?:-[a-z]{3})?)(?![\w*/.:-])", re.I,
        reads=("airflow dag nightly_etl schedule: 0 3 * * *",), skips=("The nightly ETL starts at 01:00 UTC.",))
_CRON_ZONE = rule("cron zone", r"\b(?:utc|gmt|etc/utc)\b|\btime_?zone\W+(?P<zone>[\w/+-]+)", re.I,
        reads=("Store timestamps in UTC",), skips=("backup retention: 30d",))
# a time that opens or closes a range ("08:00-20:00", "between 7 and 9 pm", "9 to 5") or that
# measures a duration ("1:30 h") is no time something happens at
_CLOCK_RANGE_AFTER = rule("clock range after", r"\s*(?:-|–|to|and|until|till)\s*\d|\s*(?:h|hrs?|hours?|min|mins|minutes?)\b",
                                re.I,
        reads=("We deploy with Argo CD",), skips=("backup retention: 30d",))
_CLOCK_RANGE_BEFORE = rule("clock range before", r"(?:\d\s*(?:[ap]\.?m\.?\s*)?(?:-|–|to|and|until|till)\s*|\b(?:between|from)\s+)$",
                                 re.I,
        reads=("open 9am to ", "between ",), skips=("open at ",))
# a dotted number followed by a unit is a quantity ("1.5 s", "99.9%"), else a name's number
_IDENTIFIER = rule("identifier", 
    r"\b[A-Za-z]+\d+[\w.]*\b|\b\d+(?:\.\d+)+\b(?!\s*(?:%|(?:" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
    + r")s?\b))|\b(?:[A-Z][\w-]*|[a-z]+[A-Z][\w-]*)\s\d+(?:\.\d+)*\b",
        reads=("Images are stored in S3",), skips=("backup retention: 30d",))
_AT_LEAST = rule("at least", r"\b(?:(?:and|or) (?:later|newer|above|up)|requires?|required|minimum|min|at least)\b|\d\+", re.I,
        reads=("VPN logins require MFA.",), skips=("connected to the VPN with just my password, no MFA prompt",))
# a sentence opening with a verb in the past or a function word, then a whole number ("Saw 5
# retry attempts", "Merged 2 PRs today", "A 3 node cluster"): a count, not a name and its version
# ("Node 20 is used")
_PAST = frozenset("saw got ran hit took made found sent had did kept lost left put set built wrote read paid "
                  "spent gave brought caught cut held".split())
_COUNT_OPENS = rule("count opens", r"(^|[.!?;:]\s+)([A-Z][a-z]*)(?=\s\d+\b(?!\.\d))",
        reads=("dark mode GA date: Feb 3",), skips=("Dark mode ships to everyone on 3 February.",))


def _opens_count(m: re.Match) -> str:
    word = m[2].lower()
    said = word in STOP_WORDS or word in _PAST or (len(word) > 4 and word.endswith("ed"))
    return m[1] + (word if said else m[2])


_VERSION = rule("version", r"^(?:([a-z][\w-]*)\s|v)?(\d+(?:\.\d+)*)$",
        reads=("node 18.2", "v2",), skips=("node 18.2 lts",))
# a word: "onboarding_v2" is two; an acronym may open with a digit ("2FA", "3DS"), a size or a
# time of day may not ("8GB", "3PM")
_TOKEN = rule("token", r"(?<![\w.])\d(?!(?:[KMGTP]i?B|AM|PM)\b)[A-Z]{2,4}\b"
                    r"|[A-Za-z][A-Za-z0-9.+#'-]*[A-Za-z0-9+#]|[A-Za-z]",
        reads=("Cache TTL is 60 s",), skips=("42 %",))
_DIGIT = rule("digit", r"\d",
        reads=("Cache TTL is 60 s",), skips=("The frontend uses Vue",))
_APPROXIMATELY = rule("approximately", r"(?:^|\W)(?:" + "|".join(re.escape(a) for a in APPROXIMATE) + r")\W*$",
        reads=("takes about ",), skips=("takes ",))
# what the text before a number ends with (searched in its last characters: `$` also
# matches before a final newline)
# inside a word ("p95", "S3") or a hyphenated name ("wh-2", "us-east-1"; not "sub-100ms")
_IN_NAME = rule("in name", r"(?:[A-Za-z]|\b(?!(?:sub|under|over|near)-)[A-Za-z]\w*-)$", re.I,
        reads=("Cache TTL is 60 s",), skips=("RESET_TOKEN_TTL = 3600",))
_RATE = rule("rate", r"\d[\d,.]*k?%?(?:\s+[A-Za-z]+)?\s+$", re.I,
        reads=("120 lines ",), skips=("lines ",))  # "120 lines an hour", "$20 a month": per hour
_IN_RANGE = rule("in range", r"\d[:\-]$",
        reads=("08:00-",), skips=("08:00 ",))  # "08:00-20:00"
_WORD_BEFORE = rule("word before", r"([A-Za-z]{3,})\W{0,2}$",
        reads=("We deploy on Fridays",), skips=("backup retention: 30d",))
_ASCII_LETTERS = frozenset(string.ascii_letters)


@dataclass(frozen=True)
class Quantity:
    dimension: str
    amount: float
    approximate: bool = False
    bound: str = ""  # "max": what it measures is at most this ("under 200 ms"); "min": at least ("at least 12")

    def agrees(self, other: "Quantity") -> bool:
        if self.dimension != other.dimension:
            return False
        if self.amount == other.amount:
            return True
        if self.dimension.startswith("clock"):  # minutes after midnight, round the clock
            apart = abs(self.amount - other.amount) % 1440
            return (self.approximate or other.approximate) and min(apart, 1440 - apart) <= CLOCK_SLACK
        tolerance = 0.1 if (self.approximate or other.approximate) else 0.0
        high = max(abs(self.amount), abs(other.amount))
        return high > 0 and abs(self.amount - other.amount) <= tolerance * high

    def breaks(self, bound: "Quantity") -> bool:
        """Whether this quantity cannot hold beside `bound`: an amount beyond its limit (a p95 of
        320 ms against "under 200 ms", an 8-character password against "at least 12
        characters"), another limit of the same side ("take up to 45 days" against "within 30
        days"), or a limit of the other side that leaves nothing between ("at least 16" against
        "at most 12")."""
        if bound.dimension != self.dimension or not bound.bound or self.agrees(bound):
            return False
        if self.bound == bound.bound:
            return True
        if self.bound:
            return self.amount > bound.amount if self.bound == "min" else self.amount < bound.amount
        return self.amount > bound.amount if bound.bound == "max" else self.amount < bound.amount


@dataclass(frozen=True)
class Statement:
    quantities: tuple[Quantity, ...] = ()
    denied: tuple[Quantity, ...] = ()  # "the timeout is not 30 minutes"
    dates: tuple[tuple, ...] = ()  # (year or None, month or None, day)
    denied_dates: tuple[tuple, ...] = ()  # dates it says are not the ones ("not the 14th")
    days: frozenset = frozenset()  # days of the week a schedule names (0 is Monday): "on Thursdays"
    qualifiers: frozenset = frozenset()  # "p95", "react 19": numbers that name, not measure
    versions: frozenset = frozenset()  # (name, numbers): "ios 16" ("ios", (16,)); "v1.29.4" ("", (1, 29, 4))
    at_least: bool = False  # its versions are the lowest that will do ("iOS 16 and later", "requires 3.10")
    names: frozenset = frozenset()  # lower-cased names said to be in use
    rejected: frozenset = frozenset()  # names said not to be (any more)
    dropped: frozenset = frozenset()  # the words, any case, of its clauses that deny or retire ("no gradle files")
    mentioned: frozenset = frozenset()  # every capitalised name it mentions, lower-cased
    negated: bool = False
    denies: frozenset = frozenset()  # the stems of the clauses that deny ("doesn't have SSO": have, sso)
    stems: frozenset = frozenset()  # its content words' stems ("sampled", "sampling": sampl)
    change: bool = False
    target: bool = False
    goal: bool = False  # a plan or an aim ("goal", "should", "SLO"): a measurement may miss it
    part: bool = False
    outside: bool = False  # it says what it names is not the thing of its kind ("..., not the paging tool")
    scopes: frozenset = frozenset()
    value_scopes: frozenset = frozenset()  # the scopes of the clauses that give its numbers, if they name any
    words: frozenset = field(default_factory=frozenset)  # content words, crudely singular
    acronyms: frozenset = frozenset()  # its all-capital words ("sso")
    letters: str = ""  # the first letter of each of its words ("single sign-on": "sso")
    text: str = ""  # what was read (consensus/subjects.py parses it when it must)

    @functools.cached_property
    def denied_names(self) -> frozenset:
        """The names it mentions in a clause that denies or retires ("no Sentry DSN"), not
        elsewhere ("..., Security Hub flagged it")."""
        return frozenset(n for n in self.mentioned if set(parts(n)) & self.dropped)

    def spells(self, acronyms: frozenset) -> frozenset:
        """Those of `acronyms` its words spell, one word a letter ("SSO": "single sign-on")."""
        return frozenset(a for a in acronyms if len(a) >= 3 and a in self.letters)


_STEMMER = snowballstemmer.stemmer("english")


def _says_off(text: str) -> bool:
    """"off" in `text` denies something (see _OFF); moved off a thing is away from it."""
    if "off" not in text.lower():
        return False
    return any(not (m[1] and _PARTICLE_OFF.match(m[1])) for m in _OFF.finditer(_MOVED_OFF.sub(" ", text)))


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A lower-cased word's Snowball (Porter 2) stem: "sampled", "sampling" and "samples" are
    one word to whether one statement denies what another says."""
    return _STEMMER.stemWord(word)


def parts(word: str) -> list[str]:
    """A word's parts between its dots and hyphens ("jest.config.js": jest, config, js)."""
    return re.split(r"[.-]", word)


def _labels(said: list[str]) -> frozenset[str]:
    """The stems of the words a host or file name is made of ("admin.acme.io": admin, acme;
    "jest.config.js": jest, config): a statement about admin.acme.io is about the admin site.
    Parts of two letters or fewer ("io", "js") and function words are none."""
    return frozenset(stem(part) for word in said if "." in word for part in word.split(".")
                     if len(part) > 2 and part not in STOP_WORDS)


def _initial(word: str) -> str:
    """How a word stands in an acronym: its first letter, a number word as its digit
    ("two-factor authentication": "2fa")."""
    number = WORD_NUMBERS.get(word)
    return str(number) if number is not None and number < 10 else word[0]


def _name(text: str) -> str:
    return text.strip(".,;:!?'\"()").lower().removesuffix("'s")


def singular(word: str) -> str:
    """A plural's singular, crudely: retries -> retry, boxes -> box, nodes -> node."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# nouns that count one thing: a try is a time is an attempt ("retried 3 times", "4 retry
# attempts", "four tries"), a char a character
_COUNTED_AS = {"time": "attempt", "try": "attempt", "retry": "attempt", "char": "character", "approval": "review"}


def _counted(noun: str) -> str:
    """The dimension of a count of `noun` ("count:attempt" of "times")."""
    noun = singular(noun)
    return f"count:{_COUNTED_AS.get(noun, noun)}"


def _unit(raw: str | None) -> tuple[str, float] | None:
    if not raw:
        return None
    unit = raw.lower()
    if unit in UNITS:
        return UNITS[unit]
    if unit.endswith("s") and unit[:-1] in UNITS:
        return UNITS[unit[:-1]]
    return None


def _number(text: str) -> float:
    lowered = text.casefold()  # as the case-blind pattern matched it ("ſix": re.I folds the long s)
    return float(WORD_NUMBERS[lowered]) if lowered in WORD_NUMBERS else float(text.replace(",", ""))


_STATUS = rule("status", r"[45]\d\d",
        reads=("cdn rule /img/*: ttl 86400",),
        skips=("Product images are cached at the CDN for 7 days.",))  # an HTTP status: "429s" are responses, not seconds
# a rate: a count per span of time ("100 requests per minute", "1,000 requests a minute",
# "600/min", "14k evals/min", "41M/day", "240 requests in a minute", "1000 rpm"); an amount
# of money per span is a price ("$20 a month"), and a count of a unit per span a share of
# it ("5 hours a week")
_RATE_PER = (r"(?P<per>sec(?:ond)?s?|s|min(?:ute)?s?|m|hours?|hrs?|h|days?|d|weeks?|wk|months?)\b")
_RATES = rule("rates", 
    r"(?<![\w.$€/])(?P<num>" + _DIGITS + ")" + _MULTIPLIER +
    r"(?:\s*(?P<abbr>rpm|rps|qps|rph)\b|(?:\s+(?P<noun>[A-Za-z][A-Za-z-]*))?"
    r"(?:\s*(?P<slash>/)\s*|\s+(?P<by>per|an?|each|in\s+(?:an?|one|1))\s+)" + _RATE_PER + ")", re.I,
        reads=("api-gw limit: 100 rpm/key, burst 20",), skips=("backup retention: 30d",))
_RATE_ABBREVIATIONS = {"rpm": "minute", "rps": "second", "qps": "second", "rph": "hour"}
# a rate limit's setting by its span ("rate-limiting: minute=600", Kong's): only where the line
# speaks of a rate or a limit ("minute=30" alone may be a schedule's)
_RATE_SETTING = rule("rate setting", r"\b(?P<per>second|minute|hour|day)\s*[=:]\s*(?P<num>\d+)\b(?![.:]\d)", re.I,
        reads=("kong plugin rate-limiting public-api: minute=600",),
        skips=("The public API allows 100 requests per minute per key.",))
_LIMITING = rule("limiting", r"rate|limit|throttl|quota", re.I,
        reads=("node api-7: ulimit -n 1024",),
        skips=("raised nofile to 1048576 in the systemd unit for the API servers after the outage",))


# payment terms: "net 30", "Net-45", "payment_terms=net45" are due in that many days
_NET_TERMS = rule("net terms", r"\bnet[\s-]?(?P<days>\d{1,3})\b(?!\.\d)(?:\s*(?P<unit>%|[A-Za-z]+))?", re.I,
        reads=("billing config: payment_terms=net45",), skips=("Customer invoices are due 30 days after issue.",))


def _terms(text: str) -> tuple[list[Quantity], list[Quantity], str]:
    """The payment terms `text` gives, as days ("time"), those it denies, and the text without them."""
    found, denied = [], []

    def days(m: re.Match) -> str:
        unit = _unit(m["unit"])
        if unit is not None and unit[0] != "time":
            return m[0]  # "net 5 MB", "net 12%": an amount, no terms
        before = _before(text, m.start())
        quantity = Quantity("time", round(int(m["days"]) * UNITS["day"][1], 6))
        (denied if _denies(before) else found).append(quantity)
        return " " + (m["unit"] or "") if unit is None else " "

    return found, denied, _NET_TERMS.sub(days, text)


def _rates(text: str) -> tuple[list[Quantity], list[Quantity], str]:
    """The rates `text` gives ("rate": a count per minute), those it denies, and the text
    without them. The thing counted is not kept: within one statement's topic a rate is of
    requests or of calls alike, as a duration is of whatever it measures."""
    found, denied = [], []

    def per_minute(m: re.Match) -> str:
        noun, by = (m["noun"] or "").lower(), (m["by"] or "").lower()
        if m["abbr"]:
            span = _RATE_ABBREVIATIONS[m["abbr"].lower()]
        elif not m["slash"] and not noun and by != "per" or noun and (
                noun in STOP_WORDS or noun in ("x", "time", "times") or _unit(noun) or noun in WORD_NUMBERS):
            return m[0]  # "3 a week", "4x a day", "5 hours a week": no rate of a count
        else:
            span = m["per"]
        unit = _unit(span)
        if unit is None or unit[0] != "time":
            return m[0]
        before = _before(text, m.start())
        amount = _number(m["num"]) * _THOUSANDS.get(m["k"] or "", 1) * UNITS["minute"][1] / unit[1]
        quantity = Quantity("rate", round(amount, 6), bool(_APPROXIMATELY.search(before)), _bound(text, m.start(), before))
        (denied if _denies(before) else found).append(quantity)
        return " "

    text = _RATES.sub(per_minute, text)
    if _LIMITING.search(text):
        for m in _RATE_SETTING.finditer(text):
            found.append(Quantity("rate", round(float(m["num"]) * UNITS["minute"][1] / _unit(m["per"])[1], 6)))
        text = _RATE_SETTING.sub(" ", text)
    return found, denied, text


def _adverb(m: re.Match) -> str:
    """The stem of a period's adverb, lower-cased, without its hyphen ("Half-yearly": halfyear)."""
    return m["unit"].casefold().replace("-", "")


def _periods(text: str) -> tuple[list[Quantity], str]:
    """How often `text` says a thing happens, as periods, and the text without them."""
    found = []
    for pattern, times in _PERIODS:
        for m in pattern.finditer(text):
            unit = _unit(_ADVERB_UNITS.get(_adverb(m), m["unit"]))
            count = times(m)
            if unit and count > 0:
                found.append(Quantity("period", round(count * unit[1], 6)))
        text = pattern.sub(" ", text)
    return found, text


def _clock(text: str) -> tuple[list[Quantity], str]:
    """The times of day `text` says something happens at, in minutes after midnight (dimension
    "clock", or "clock:<zone>" when it names a zone: times of two zones are not compared; a cron
    schedule's, `_CRON`), and the text without any time of day. A time that opens or closes a range ("08:00-20:00",
    "between 7 and 9 pm", "from 9:30 to 10:15") or measures a duration ("1:30 h") is read as
    none."""
    found = []
    crons = list(_CRON.finditer(text))
    if crons:
        named = _CRON_ZONE.search(text)
        zone = (named["zone"] or "utc").lower() if named is not None else "utc"
        zone = "utc" if "utc" in zone else zone
    for m in crons:
        found.append(Quantity(f"clock:{zone}", float(int(m["h"]) * 60 + int(m["m"]))))
        if m["dom"] == m["month"] == m["dow"] == "*":
            found.append(Quantity("period", float(UNITS["day"][1])))
    text = _CRON.sub(" ", text)
    for m in _CLOCK.finditer(text):
        if _CLOCK_RANGE_AFTER.match(text, m.start("zone") if m["zone"] else m.end()) or \
                _CLOCK_RANGE_BEFORE.search(text, max(0, m.start() - 10), m.start()):
            continue
        if m["word"]:
            minutes = 720 if m["word"].lower() == "noon" else 0
        else:
            hour = int(m["h"] if m["h"] is not None else m["h12"])
            half = (m["half"] or m["half12"] or "").lower()[:1]
            if half and hour > 12:
                continue  # "14 pm": no time
            hour = hour % 12 + (12 if half == "p" else 0) if half else hour
            minutes = hour * 60 + int(m["m"] or 0)
        zone = (m["zone"] or "").lower().removesuffix(" time")
        zone = {"gmt": "utc", "local": ""}.get(zone, zone)
        # a time off the five-minute marks was read off a clock ("started 02:31"), about when a
        # schedule said; "around 9" is approximate as any amount
        approximate = minutes % 5 != 0 or bool(_APPROXIMATELY.search(text, max(0, m.start() - 25), m.start()))
        found.append(Quantity(f"clock:{zone}" if zone else "clock", float(minutes), approximate))
    return found, _CLOCK.sub(" ", text)  # a range's times too: "between 7 and 9 pm" counts no "pm"


# A setting as configuration and bot output write it: an identifier key ("traces_sample_rate",
# "STRIPE_TIMEOUT_MS", "password.min_length") or a duration's plain key ("ttl"), then "=", ":" or
# a space, then its value ("0.05", "10000", "25m", "false")
_SETTING = rule("setting", r"(?<![\w./-])(?P<key>\d*[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|(?i:ttl|timeout|max-age))"
                      r"(?:\s*[=:]\s*|\s+)(?P<value>(?P<num>\d+(?:\.\d+)?)(?P<suffix>[A-Za-z]{1,3})?|"
                      r"(?P<flag>(?i:true|false|on|off|yes|no|enabled|disabled|none)))"
                      r"(?![\w.%])",
        reads=("alb idle_timeout=60s",), skips=("The load balancer drops idle connections after a minute.",))
_KEY_WORD = rule("key word", r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+[a-z]*",
        reads=("Cache TTL is 60 s",), skips=("--",))  # "maxBodySize": max, body, size
# a key that names a duration gives seconds when its value has no unit (TTLs, timeouts and
# max-age are counted in seconds by Redis, nginx, HTTP caching and DNS alike)
_SECONDS_KEYS = frozenset({"ttl", "timeout", "expiry", "expires", "expire", "age", "lifetime"})
_SIZE_KEYS = frozenset({"size", "body", "memory", "mem", "maxmemory", "heap", "buffer", "disk", "storage", "upload"})
_FRACTION_KEYS = frozenset({"rate", "ratio", "fraction", "probability"})  # 0.05 of them is 5 %
_COUNT_WORDS = frozenset({"count", "num", "number", "total", "max", "min", "limit", "value", "n", "required",
                          "default"})  # words of a count's key that do not name what it counts
_FALSE = frozenset({"false", "off", "no", "disabled", "none"})
_QUALIFIER_PART = rule("qualifier part", r"[A-Za-z]+\d+",
        reads=("Images are stored in S3",), skips=("backup retention: 30d",))


def _settings(text: str) -> tuple[list[Quantity], frozenset[str], str]:
    """The amounts `text`'s settings give, read from their keys ("STRIPE_TIMEOUT_MS=10000" is
    10 s, "ttl 86400" a day, "traces_sample_rate=0.05" 5 %, "client_max_body_size 25m" at most
    25 MB, "max_attempts=5" at most 5 attempts, "payment_terms=net45" 45 days), the words of
    the settings it turns off ("2fa_requirement_enabled=false": what it denies), and the text
    without the settings read. A key's value is its own: the word after it is no unit of it,
    unless the value has none ("TTL = 5 min" is left to `_quantities`)."""
    found, off = [], set()

    def read_one(m: re.Match) -> str:
        key = [w.lower() for w in _KEY_WORD.findall(m["key"])]
        if m["flag"]:
            if m["flag"].lower() in _FALSE:
                off.update(w for w in key if w not in ("enabled", "enable", "is", "flag"))
        else:
            amount = _setting_amount(m, key, text)
            if amount is None:
                return m[0]
            found.append(amount)
        # a key's own qualifier stays ("p95_latency_ms=182" is a p95)
        return " " + " ".join(p for p in re.split(r"[_.]", m["key"]) if _QUALIFIER_PART.fullmatch(p)) + " "

    rest = _SETTING.sub(read_one, text)
    return found, frozenset(off), rest


def _setting_amount(m: re.Match, key: list[str], text: str) -> Quantity | None:
    """The amount one setting gives (`_settings`), or None if it is no amount of its key."""
    amount, suffix = float(m["num"]) * _THOUSANDS.get(m["suffix"] or "", 1), (m["suffix"] or "").lower()
    if m["suffix"] in _THOUSANDS:
        suffix = ""  # "page_views: 3.2M": a count
    after = re.match(r"\s*([A-Za-z%$€]+)", text[m.end():])
    if not suffix and after and (_unit(after[1]) or _HEAD_AFTER.match(text, m.end())):
        return None  # "TTL = 5 min", "example.com: 212 records": the words after say what it is
    bound = "max" if "max" in key else "min" if "min" in key else ""
    if suffix:
        unit = UNITS["mb"] if suffix == "m" and _SIZE_KEYS & set(key) else _unit(suffix)
        if unit is None:
            return None  # a tag ("node:18-alpine"): no amount
    else:
        unit = _unit(key[-1]) if len(key) > 1 else None  # "timeout_ms", "retention_days"
        if unit is None and _SECONDS_KEYS & set(key):
            unit = UNITS["s"]
    if unit is not None:
        return Quantity(unit[0], round(amount * unit[1], 6), bound=bound)
    if key[-1] in _FRACTION_KEYS and 0 <= amount <= 1:
        return Quantity("percent", round(amount * 100, 6), bound=bound)
    noun = next((w for w in reversed(key) if w not in _COUNT_WORDS and not w[0].isdigit()), "")
    return Quantity(_counted(noun), amount, bound=bound) if noun else None


def _days(text: str) -> frozenset[int]:
    """The days of the week `text` says something happens on (0 is Monday; see _DAY), a range
    ("Mon-Fri", "Monday to Friday") every day of it."""
    days, last = set(), None
    for m in _DAY.finditer(text):
        if m["short"] and not m["short"][0].isupper():
            continue
        if _DATING.search(text, max(0, m.start() - 12), m.start()):
            last = None
            continue
        day = _WEEKDAY_OF[(m["full"] or m["short"])[:3].lower()]
        if last is not None and _DAY_RANGE.match(text[last[1]:m.start()]):
            days.update((last[0] + k) % 7 for k in range((day - last[0]) % 7 + 1))
        days.add(day)
        last = (day, m.end())
    return frozenset(days)


# availability said in nines: "three nines" is 99.9 %, "four 9s" 99.99 %
_NINES = rule("nines", r"\b(two|three|four|five|[2-5])\s+(?:nines|9s)\b", re.I,
        reads=("availability target for checkout API = three nines",),
        skips=("The checkout API has a 99.9% availability SLO.",))


def _percent_of_nines(m: re.Match) -> str:
    n = int(m[1]) if m[1].isdigit() else WORD_NUMBERS[m[1].lower()]
    return f"{100 - 10 ** (2 - n):.{max(0, n - 2)}f}%"


_HEAD_AFTER = rule("head after", r"\s+([A-Za-z]\w*[A-Za-rt-z]s)\b",
        reads=("We deploy on Fridays",),
        skips=("backup retention: 30d",))  # a plural right after a count's first word


# a span of time said in parts of its unit: "a quarter of an hour", "three quarters of an hour", "an
# hour and a half", "2 and a half days", "two days and a half", "a half-day" (in digits, for _QUANTITY)
_SPAN_UNIT = r"(" + _SPANS + r")s?"
_IN_PARTS = [
    (rule("a quarter of a span", r"\b(?:a|one)\s+quarter\s+(?:of\s+)?an?\s+" + _SPAN_UNIT + r"\b", re.I,
        reads=("Ack window before escalation: a quarter of an hour.",),
        skips=("pagerduty policy platform-primary: escalate after 15 min if unacknowledged",)), lambda m: f"0.25 {m[1]}"),
    (rule("three quarters of a span", r"\bthree[\s-]quarters\s+of\s+an?\s+" + _SPAN_UNIT + r"\b", re.I,
        reads=("three quarters of an hour",), skips=("a quarter of an hour",)), lambda m: f"0.75 {m[1]}"),
    (rule("a span and a half", r"\ban?\s+" + _SPAN_UNIT + r"\s+and\s+a\s+half\b", re.I,
        reads=("my access token was still accepted an hour and a half after login, no refresh in between",),
        skips=("Access tokens expire after 15 minutes, refresh tokens after 30 days.",)), lambda m: f"1.5 {m[1]}s"),
    (rule("n spans and a half", r"\b(\d+|" + _COUNT_WORD + r")\s+(?:" + _SPAN_UNIT + r"\s+and\s+a\s+half|and\s+a\s+half\s+"
                + _SPAN_UNIT + r")\b", re.I,
        reads=("2 hours and a half", "two and a half days",),
        skips=("2 hours",)), lambda m: f"{_number(m[1]) + 0.5:g} {m[2] or m[3]}s"),
    (rule("a half-span", r"\b(?:an?\s+)?half-" + _SPAN_UNIT + r"\b", re.I,
        reads=("a half-hour call",), skips=("a one-hour call",)), lambda m: f"0.5 {m[1]}"),
]


def _in_parts(text: str) -> str:
    lowered = text.lower()
    if "quarter" not in lowered and "half" not in lowered:
        return text  # (most texts: no pattern to try)
    for pattern, digits in _IN_PARTS:
        text = pattern.sub(digits, text)
    return text


def _quantities(text: str) -> tuple[list[Quantity], list[Quantity]]:
    text = _in_parts(_NINES.sub(_percent_of_nines, text))
    asserted, text = _periods(text)
    denied = []
    for m in _QUANTITY.finditer(text):
        raw = m["num"]
        if raw.casefold() in ("a", "an", "some", "half") and not _unit(m["unit"]):
            continue  # "a note", "an email": no quantity ("half a year" is read below)
        if raw.casefold() in ("a", "an") and _RATE.search(text, max(0, m.start() - 40), m.start()):
            continue  # the hour of "120 lines an hour" is what the lines are counted per, not a duration
        before = _before(text, m.start())
        if _IN_NAME.search(text, max(0, m.start() - 24), m.start()) or (
                m.end() < len(text) and text[m.end()].isalpha() and not m["unit"]):
            continue  # inside a word or a name: "p95", "S3", "wh-2", "us-east-1"
        if re.match(r"[:\-]\d", text[m.end():m.end() + 2]) or _IN_RANGE.search(text, max(0, m.start() - 3), m.start()):
            continue  # a time of day or a range: "08:00-20:00", "08-20"
        if _SPAN.search(before):
            continue  # which things, or over what span: "uploads over 5 GB fail", "3 times over 5 days"
        if m["unit"] == "s" and _STATUS.fullmatch(raw) and text[m.end("num"):m.end()] == "s":
            continue  # "got 429s": HTTP statuses, no seconds
        amount = _number(raw) * _THOUSANDS.get(m["k"] or "", 1)
        unit = _unit(m["pre"]) or _unit(m["unit"])
        if unit is None and m["unit"] and m["unit"].lower() in ("of",) and raw.lower() == "half":
            continue
        if unit is None:
            noun = (m["unit"] or "").lower()
            head = _HEAD_AFTER.match(text, m.end())
            if noun and amount != 1 and head and not noun.endswith("s") and not _unit(head[1]):
                noun = head[1].lower()  # "50 database connections", "2 required reviews": the connections
            if not noun or noun in STOP_WORDS or noun in MONTHS:
                previous = _word_before(text, m.start())  # "max retries 3"
                noun = previous[1].lower() if previous and not m["unit"] else ""
            if not noun or noun in STOP_WORDS or noun in MONTHS or noun in APPROXIMATE or noun in DENIED:
                continue  # a bare number (a version, an hour of the day) says no quantity
            dimension, amount_base = _counted(noun), amount
        else:
            dimension, amount_base = unit[0], amount * unit[1]
        quantity = Quantity(dimension, round(amount_base, 6),
                            bool(_APPROXIMATELY.search(before))
                            or bool(re.match(r"\s*-?ish\b", text[m.end():]))
                            or (unit is not None and unit[1] >= UNITS["month"][1]),  # months and years vary
                            _bound(text, m.start(), before))
        (denied if _denies(before) else asserted).append(quantity)
    for m in re.finditer(r"\bhalf an? (\w+)", text, re.I):
        unit = _unit(m[1])
        if unit:
            asserted.append(Quantity(unit[0], round(0.5 * unit[1], 6), True))
    return asserted, denied


_CLAUSE_REACH = 200  # characters a number's clause is read back for the condition it may be said in


def _before(text: str, start: int) -> str:
    """The words just before a quantity at `start`, lower-cased: what bounds, hedges or denies it."""
    return text[max(0, start - 25):start].lower()


def _denies(before: str) -> bool:
    """The last three words before a quantity deny it ("not 30 minutes", "isn't net 30")."""
    return any(w.strip(",.") in DENIED for w in before.split()[-3:])


def _bound(text: str, start: int, before: str) -> str:
    """Which side a number starting at `start` bounds ("max", "min"), if its own words say so
    and its clause is no condition."""
    kind = next((kind for kind, said in _BOUNDS.items() if said.search(before)), "")
    return "" if kind and _in_condition(text, start) else kind


def _in_condition(text: str, start: int) -> bool:
    """The clause before `start` says when something applies ("if the primary doesn't ack within
    30 minutes, ...")."""
    near = max(0, start - _CLAUSE_REACH)  # (a clause of a hostile line is not read back to its start)
    clause = text[max(near - 1, *(text.rfind(mark, near, start) for mark in ".;,!?:")) + 1:start]
    return bool(_CONDITION.search(clause))


def timeout(text: str) -> bool:
    """`text` gives a timeout: "within" a number (mostly a span) in a clause that says when
    something happens ("if the primary doesn't ack a page within 30 minutes it goes to the
    secondary"). It is when the consequence comes, a setting's one amount, not a bound on what
    is seen. ("can't merge if coverage is below 75%" is a floor on what is measured: 81% agrees
    with it.)"""
    return any(m["within"] and _in_condition(text, m.start("within")) for m in TARGETS.finditer(text))


def _word_before(text: str, end: int) -> re.Match | None:
    """`_WORD_BEFORE` in text[:end], searched in its last characters unless the word found
    may go on before them."""
    start = max(0, end - 40)
    found = _WORD_BEFORE.search(text, start, end)
    if found and start and found.start() == start and text[start - 1] in _ASCII_LETTERS:
        return _WORD_BEFORE.search(text, 0, end)
    return found


def _dates(text: str) -> tuple[list[tuple], list[tuple], str]:
    """The dates `text` gives, those it denies ("21 March, not the 14th"), and the text
    without them."""
    found, denied = [], []
    if not _DIGIT.search(text):
        return found, denied, text  # every date has a digit
    lowered = text.lower() if text.isascii() else None  # (re.I folds some letters outside ASCII)
    for pattern, parts, needs in _DATES:
        if lowered is not None and not any(word in lowered for word in needs):
            continue
        matches = list(pattern.finditer(text))
        for match in matches:
            year, month, day = parts(match)
            try:
                date(year or 2000, month or 1, day or 1)
            except ValueError:
                continue
            said = text[max(0, match.start() - 12):match.start()].lower().split()[-2:]
            if said and said[-1] in ("on", "the"):  # "not on 10 May" ("not until 3 May" denies nothing,
                said = said[:-1]  # nor does "no, the 14th")
            (denied if said and said[-1] in DENIED else found).append((year, month, day))
        if matches:
            text = pattern.sub(" ", text)
    return found, denied, text


def _name_like(token: str) -> bool:
    """A capitalised word that is a name even opening a sentence: "SSO", "GitHub", "S3"."""
    return token[1:] != token[1:].lower() or bool(_DIGIT.search(token))


@functools.lru_cache(maxsize=1 << 16)
def read(text: str) -> Statement:
    """What `text` states (see the module docstring)."""
    dates, denied_dates, rest = _dates(text)
    clocks, rest = _clock(rest)
    rates, denied_rates, rest = _rates(rest)
    terms, denied_terms, rest = _terms(rest)
    settings, turned_off, rest = _settings(rest)  # (a setting's max or min is a rule: `target`)
    rest = _COUNT_OPENS.sub(_opens_count, rest)  # "Saw 5 retry attempts": no version of "Saw"
    found_qualifiers = _IDENTIFIER.findall(rest)
    qualifiers = frozenset(q.lower() for q in found_qualifiers)
    versions = frozenset((m[1] or "", tuple(int(p) for p in m[2].split(".")))
                         for m in map(_VERSION.match, qualifiers) if m)
    rest = _IDENTIFIER.sub(" ", rest)  # where each stands ("99.9" in "99.95%, not 99.9" is one)
    asserted, denied = _quantities(rest)
    sentences = re.split(r"(?<=[.!?;])\s+", text)
    mentioned, names, rejected = set(), set(), set()
    for sentence in sentences:
        words = sentence.split()
        for k, word in enumerate(words):
            token = word.strip(",.;:!?()'\"")
            if token and _NAME_START.match(token) and (k > 0 or _name_like(token)) and token.lower() not in MONTHS:
                mentioned.add(_name(token))
        found = [m.split()[0] for m in CHOICE.findall(sentence)] + CHOSEN.findall(sentence) + IS_THE.findall(sentence)
        names |= {_name(m) for m in found if _name(m) not in MONTHS and _name(m) not in WEEKDAYS
                  and _name(m) not in STOP_WORDS}
        rejected |= {_name(a or b) for a, b in REJECT.findall(sentence)}
    raw_tokens = _TOKEN.findall(text)
    tokens = [t.lower() for t in raw_tokens]
    told = _NOT_UNTIL.sub(" ", text)  # "not until 3 May" says when, and denies nothing
    deniers = tokens if told == text else [t.lower() for t in _TOKEN.findall(told)]
    negated = any(t in NEGATIONS or t.endswith("n't") for t in deniers) or _says_off(text)

    scopes = frozenset(filter(None, map(_scope, raw_tokens)))
    said = _said(tokens)
    content = frozenset(singular(t) for t in said)

    denies = frozenset(stem(t.lower()) for clause in _CLAUSE.findall(told)
                       if _NEGATED.search(clause) or _says_off(clause)
                       for t in _TOKEN.findall(clause) if t.lower() not in STOP_WORDS and t.lower() not in DENIERS
                       and not t.lower().endswith("n't")) if negated else frozenset()
    if turned_off:  # "2fa_requirement_enabled=false" denies a requirement of 2FA
        negated, denies = True, denies | {stem(w) for w in turned_off}
    acronyms = frozenset(t.lower() for t in raw_tokens if 2 <= len(t) <= 5 and t.isupper())
    dropped = frozenset(part for clause in _WORD_CLAUSE.findall(told)
                        if _NEGATED.search(clause) or _RETIRES.search(clause)
                        for t in _TOKEN.findall(clause) for part in parts(t.lower())
                        if part and part not in STOP_WORDS and part not in DENIERS)
    return Statement(
        text=text, letters="".join(_initial(p) for t in tokens for p in t.split("-") if p), acronyms=acronyms,
        denies=denies, stems=frozenset(stem(t) for t in said) | _labels(said),
        quantities=tuple(clocks + rates + terms + settings + asserted),
        denied=tuple(denied_rates + denied_terms + denied), dates=tuple(dates),
        denied_dates=tuple(denied_dates),
        days=_days(text),
        qualifiers=qualifiers,
        versions=versions, at_least=bool(versions) and bool(_AT_LEAST.search(text)),
        names=frozenset(names - rejected), rejected=frozenset(rejected), dropped=dropped,
        mentioned=frozenset(mentioned),
        negated=negated, change=any(not _NOT_DONE.search(text, 0, m.start()) and not (
            m[0].lower() == "again" and _RECURS.search(_clause_of(text, m))) for m in CHANGES.finditer(text)),
        target=bool(TARGETS.search(text)) or any(q.bound for q in settings),
        goal=bool(GOALS.search(text)),
        part=bool(PART.search(text)), outside=bool(OUTSIDE.search(text)), scopes=scopes, words=content,
        value_scopes=frozenset(filter(None, (_scope(t) for clause in _NUMBER_CLAUSE.findall(text)
                                             if _DIGIT.search(clause) for t in _TOKEN.findall(clause)))) or scopes)


def _said(tokens: list[str]) -> list[str]:
    """The content words among lower-cased tokens: what a statement is about, not how it is
    phrased or denied."""
    return [t for t in tokens if t not in STOP_WORDS and t not in DENIERS and not t.endswith("n't") and len(t) > 1]


def words(text: str) -> frozenset[str]:
    """The content words of `text`, crudely singular: a Statement's `words`."""
    return frozenset(singular(t) for t in _said([t.lower() for t in _TOKEN.findall(text)]))


def _scope(token: str) -> str | None:
    """The scope a word names, if any: itself or, hyphenated, its head ("prod-1", "staging-eu";
    "non-prod" names none). "us" in lower case alone is the pronoun ("a few of us worked"), not
    the region ("US", "us-east-1")."""
    if token == "us":
        return None
    token = token.lower()
    return SCOPES.get(token) or SCOPES.get(token.split("-", 1)[0])


def apart(a: frozenset, b: frozenset) -> bool:
    """Two statements' scopes name different places: each names some and none of one is a
    scope of the other or holds one ("staging" and "production" are apart; "iOS" and "all
    mobile" are not), or they do so within one division (DIVISIONS) whatever else they share
    ("production ... on weekends" and "staging ... on weekends" are apart)."""
    if not a or not b:
        return False
    return not _meet(a, b) or any(
        not _meet({x for x in a if DIVISION[x] == d}, {x for x in b if DIVISION[x] == d})
        for d in {DIVISION[x] for x in a} & {DIVISION[x] for x in b})


def _meet(a: set, b: set) -> bool:
    """Some scope of one is, or holds, a scope of the other."""
    return bool(a & b or {WITHIN.get(x) for x in a} & b or a & {WITHIN.get(x) for x in b})
