"""LocalAgent desktop window (seed 000: "main.py 启动 Tkinter 窗口").

如何配置 .env / Configure:
    复制 .env.example 为 .env，填入 LLM_API_KEY（以及需要时的 LLM_API_URL、INTENT_MODEL_NAME、
    GENERATION_MODEL_NAME）。LLM_API_URL 可以是完整的 …/v1/chat/completions 地址，也可以是 …/v1。
    Copy .env.example to .env and set LLM_API_KEY (and LLM_API_URL / model names if needed).
    Without a key, built-in copy tasks and workspace actions still work; chat needs a key.

如何运行 / Run:
    python main.py                         # 桌面窗口 / desktop window (same as `localagent gui`)
    localagent -p "把这个文件夹里的图片复制一份"  # 命令行一次性执行 / one shot on the command line
    localagent                              # 交互式命令行 / interactive line mode

如何测试 / Try it:
    1. 运行一次后会生成 workspace/input、workspace/output、workspace/logs。
    2. 把几张图片放进 workspace/input。
    3. 在窗口里输入“把这个文件夹里的图片复制一份”，查看计划和风险，点【开始执行】。
    4. 去 workspace/output 取结果；日志在 workspace/logs/task_<id>.log。
    Run the tests with: python -m pytest -q
"""

import sys

from localagent.ui.cli import main

if __name__ == "__main__":
    sys.exit(main(["gui", *sys.argv[1:]]))
