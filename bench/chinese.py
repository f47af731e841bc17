"""Recall on Chinese and mixed memories, and across Chinese and English: 30 memories
written by hand on 2026-11-26 in the style of design document 003's workspace (a person's
notes and an assistant's daily log), 20 questions each with the memories that answer it; the
same 30 memories said in English and the same 20 questions asked in English (written by hand
on 2026-11-26, before the glosses of memlib/glosses.py existed). Three sets:

- zh -> zh: Chinese questions, Chinese memories;
- en -> zh: English questions, Chinese memories;
- zh -> en: Chinese questions, English memories (one memory of each set is in the other
  language: a mixed workspace).

    .venv/bin/python bench/chinese.py [--models minilm-int8,minilm-int8-zh] [--tokenizer icu]

Each model's store is made with the tokenizer given (ICU: the default), side by side.
Nothing was tuned on it: the glosses were built once and measured (their rules of what is not
a meaning were written reading the glosses of five memories, not any recall figure). Most
zh -> zh questions share a word with their answer, and 30 memories make R@10 easy: read R@1
and R@5.
"""

from __future__ import annotations

import argparse
import tempfile

from memlib import Insight, MemoryStore, Project
from memlib.search.search import SearchConfig

MEMORIES = [
    "用户决定使用 React 作为前端框架",
    "前端框架的选择推迟到下周再讨论",
    "讨论了数据库选型，最终选择 SQLite",
    "后端服务使用 Go 语言编写",
    "每天早上九点开站会，时长十五分钟",
    "张三负责支付模块的开发",
    "李四下周休假，代码评审由王五代替",
    "生产环境的数据库每天凌晨两点备份",
    "登录页面在手机上加载需要四秒",
    "用户反馈结算页面的按钮太小",
    "缓存过期时间设为五分钟",
    "部署流程改为通过 Argo CD 自动发布",
    "测试覆盖率目标是百分之八十",
    "日志保留三十天后删除",
    "用户只喝美式咖啡，不加糖",
    "用户喜欢简洁的界面，不要渐变色",
    "项目截止日期是三月十五日",
    "API 接口统一使用 JSON 格式返回",
    "搜索功能需要支持中文分词",
    "图片存储在 S3，开启生命周期规则",
    "周五不上线新版本",
    "客服工单在价格调整后翻了一倍",
    "支付失败时最多重试三次",
    "新用户注册流程增加了邮箱验证",
    "移动端应用在安卓十二上打开相机会崩溃",
    "数据导出任务每晚运行，超过三十分钟会超时",
    "The design review for the billing page is on Thursday",
    "Redis 用作会话缓存，淘汰策略是 allkeys-lru",
    "我们用 Kubernetes 部署所有后端服务",
    "季度目标：把首页加载时间降到两秒以内",
]

# (question, indexes of the memories that answer it)
QUESTIONS = [
    ("前端用什么框架", [0, 1]),
    ("数据库选了哪个", [2]),
    ("后端是什么语言写的", [3]),
    ("站会几点开始", [4]),
    ("谁负责支付模块", [5]),
    ("李四休假期间谁做代码评审", [6]),
    ("数据库什么时候备份", [7]),
    ("登录页面加载慢", [8]),
    ("结算页面有什么问题", [9]),
    ("缓存多久过期", [10]),
    ("怎么部署新版本", [11, 28]),
    ("测试覆盖率要求", [12]),
    ("日志保存多久", [13]),
    ("用户喜欢喝什么", [14]),
    ("界面风格偏好", [15]),
    ("项目什么时候截止", [16]),
    ("哪天不能发布", [20]),
    ("支付失败重试几次", [22]),
    ("安卓相机崩溃", [24]),
    ("billing page design review", [26]),
]

# the memories above said in English, as a person would write them (not word for word); the
# one English memory above is Chinese here
EN_MEMORIES = [
    "The user decided on React for the frontend.",
    "We postponed choosing a frontend framework until next week.",
    "After discussing databases we settled on SQLite.",
    "Backend services are written in Go.",
    "Standup is every morning at nine and lasts fifteen minutes.",
    "Zhang San is developing the payments module.",
    "Li Si is on vacation next week; Wang Wu covers code reviews.",
    "The production database is backed up every night at 2 am.",
    "The login page takes four seconds to load on phones.",
    "Users say the buttons on the checkout page are too small.",
    "Cache entries expire after five minutes.",
    "Deployment now ships automatically through Argo CD.",
    "We aim for eighty percent test coverage.",
    "Logs are deleted after thirty days.",
    "The user only drinks americano, no sugar.",
    "The user likes a clean interface without gradients.",
    "The project is due on March 15.",
    "All API endpoints return JSON.",
    "Search has to support Chinese word segmentation.",
    "Images live in S3 with lifecycle rules enabled.",
    "No new releases on Fridays.",
    "Support tickets doubled after the price change.",
    "Failed payments are retried at most three times.",
    "Sign-up for new users now includes email verification.",
    "The mobile app crashes when opening the camera on Android 12.",
    "The nightly data export times out after thirty minutes.",
    "账单页面的设计评审在周四",
    "Redis holds sessions, with allkeys-lru eviction.",
    "We deploy every backend service on Kubernetes.",
    "Quarterly goal: home page loads in under two seconds.",
]

# the questions above asked in English (the last was English: it stays)
EN_QUESTIONS = [
    ("which frontend framework do we use", [0, 1]),
    ("which database did we pick", [2]),
    ("what language is the backend written in", [3]),
    ("when does the standup start", [4]),
    ("who owns the payments module", [5]),
    ("who reviews code while Li Si is on leave", [6]),
    ("when is the database backed up", [7]),
    ("login page is slow", [8]),
    ("what is wrong with the checkout page", [9]),
    ("how long until the cache expires", [10]),
    ("how do we deploy a new version", [11, 28]),
    ("test coverage requirement", [12]),
    ("how long are logs kept", [13]),
    ("what does the user like to drink", [14]),
    ("UI style preferences", [15]),
    ("when is the project deadline", [16]),
    ("which day can we not release", [20]),
    ("how many retries when a payment fails", [22]),
    ("android camera crash", [24]),
    ("billing page design review", [26]),
]
SETS = {"zh -> zh": (MEMORIES, QUESTIONS), "en -> zh": (MEMORIES, EN_QUESTIONS), "zh -> en": (EN_MEMORIES, QUESTIONS)}
KS = (1, 5, 10)


def measure(store: MemoryStore, ids: list[str], project_id: str, questions) -> dict[str, dict[int, float]]:
    from memlib import Scope

    out = {}
    for mode in ("fts", "vector", "hybrid"):
        recall = {k: 0.0 for k in KS}
        for question, answers in questions:
            ranked = [h.id for h in store.search(question, k=max(KS), mode=mode, scope=Scope(project_id=project_id))]
            wanted = {ids[i] for i in answers}
            for k in KS:
                recall[k] += len(wanted & set(ranked[:k])) / len(wanted)
        out[mode] = {k: 100 * v / len(questions) for k, v in recall.items()}
    return out


def main() -> None:
    from memlib.embeddings import named

    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="minilm-int8,minilm-int8-zh",
                        help="embedders' names (memlib.embeddings.NAMED), comma-separated")
    parser.add_argument("--tokenizer", default="icu", choices=("icu", "simple"))
    args = parser.parse_args()
    print(f"{len(MEMORIES)} memories, {len(QUESTIONS)} questions a set; {args.tokenizer} words\n")
    print("| set | model | mode | R@1 | R@5 | R@10 |\n|---|---|---|---|---|---|")
    for name, (texts, questions) in SETS.items():
        for model in args.models.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                store = MemoryStore.open(tmp, embedder=named(model), search=SearchConfig(tokenizer=args.tokenizer))
                project = Project(name="工作区")
                memories = [Insight(project_id=project.id, content=text) for text in texts]
                store.add([project, *memories], duplicates="keep")
                store.maintain()
                for mode, recall in measure(store, [m.id for m in memories], project.id, questions).items():
                    print(f"| {name} | {model} | {mode} | {recall[1]:.1f} | {recall[5]:.1f} | {recall[10]:.1f} |")


if __name__ == "__main__":
    main()
