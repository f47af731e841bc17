"""Recall on Chinese and mixed memories: 30 memories written by hand on 2026-11-26 in the
style of design document 003's workspace (a person's notes and an assistant's daily log),
20 questions each with the memories that answer it, asked of a store made with the ICU
tokenizer (the default) and of one made with the simple tokenizer, side by side.

    .venv/bin/python bench/chinese.py [--model minilm-int8]

Nothing was tuned on it: it measures the tokenizer choice and what the English model does
with Chinese. Most questions share a word with their answer, and 30 memories make R@10 easy:
it shows whether Chinese words are found at all, not a ranking under load.
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
KS = (5, 10)


def measure(store: MemoryStore, ids: list[str], project_id: str) -> dict[str, dict[int, float]]:
    from memlib import Scope

    out = {}
    for mode in ("fts", "vector", "hybrid"):
        recall = {k: 0.0 for k in KS}
        for question, answers in QUESTIONS:
            ranked = [h.id for h in store.search(question, k=max(KS), mode=mode, scope=Scope(project_id=project_id))]
            wanted = {ids[i] for i in answers}
            for k in KS:
                recall[k] += len(wanted & set(ranked[:k])) / len(wanted)
        out[mode] = {k: 100 * v / len(QUESTIONS) for k, v in recall.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=None, help="an embedder's name (memlib.embeddings.NAMED)")
    args = parser.parse_args()
    embedder = None
    if args.model:
        from memlib.embeddings import named

        embedder = named(args.model)
    print(f"{len(MEMORIES)} memories, {len(QUESTIONS)} questions\n")
    print("| tokenizer | mode | R@5 | R@10 |\n|---|---|---|---|")
    for tokenizer in ("icu", "simple"):
        with tempfile.TemporaryDirectory() as tmp:
            store = MemoryStore.open(tmp, embedder=embedder, search=SearchConfig(tokenizer=tokenizer))
            project = Project(name="工作区")
            memories = [Insight(project_id=project.id, content=text) for text in MEMORIES]
            store.add([project, *memories])
            store.maintain()
            for mode, recall in measure(store, [m.id for m in memories], project.id).items():
                print(f"| {tokenizer} ({store.model_name}) | {mode} | {recall[5]:.1f} | {recall[10]:.1f} |")


if __name__ == "__main__":
    main()
