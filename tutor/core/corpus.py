"""The project's own corpus, generated deterministically from word lists and templates.

The lesson needs phenomena to appear for real, so the text is built to contain them:
words of one kind (animals, fruits, people, vehicles) are used alike, so next-token
training can pull their rows together; dates, numbers and made-up names make a long tail
of chunk types; the validation split names people with characters that the training split
never uses, so char- and word-level schemes meet [UNK]. Every sentence is written here.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

SEED = 20261129

PEOPLE = ["小明", "小王", "小红", "小李", "小张", "小刚", "小芳", "小林", "小周", "小陈"]
ANIMALS = ["猫", "狗", "兔子", "老虎", "熊猫", "小鸟", "鸭子", "松鼠"]
FRUITS = ["苹果", "香蕉", "西瓜", "葡萄", "橘子", "草莓", "桃子", "梨"]
VEHICLES = ["汽车", "火车", "飞机", "自行车", "公交车", "轮船", "地铁", "出租车"]
PLACES = ["学校", "公园", "医院", "商店", "图书馆", "北京", "上海", "广州", "杭州", "成都"]
SUBJECTS = ["机器学习", "人工智能", "数学", "物理", "历史", "音乐", "画画", "编程"]
TIMES = ["今天", "昨天", "明天", "早上", "晚上", "周末", "上午", "下午"]
FEELINGS = ["很开心", "有点累", "很高兴", "很紧张", "很满意", "有点饿"]

ANIMAL_CLAUSES = [
    "{p}家的{a}在睡觉",
    "{p}喂了{a}一些吃的",
    "那只{a}饿了",
    "{a}在院子里跑来跑去",
    "{p}摸了摸{a}的头",
    "这只{a}很可爱",
    "{a}叫了一声",
    "{p}带{a}去看兽医",
    "{a}在草地上晒太阳",
    "{p}给{a}洗了个澡",
    "{a}生病了",
    "一只{a}躲在树下",
]
FRUIT_CLAUSES = [
    "{p}吃了一个{f}",
    "这个{f}很甜",
    "{p}买了几斤{f}",
    "{f}已经熟了",
    "{p}用刀切开了{f}",
    "{f}的味道很好",
    "盘子里有一个{f}",
    "{p}洗了洗{f}",
    "{f}放在冰箱里",
    "{p}最爱吃{f}",
    "新鲜的{f}很便宜",
    "{p}削了一个{f}",
]
VEHICLE_CLAUSES = [
    "{p}坐{v}去{l}",
    "这辆{v}开得很快",
    "{v}停在{l}门口",
    "{p}等了很久的{v}",
    "{v}晚点了",
    "{p}的{v}坏了",
    "一辆{v}开过来了",
    "{p}开着{v}去{l}",
    "{v}上人很多",
    "{p}修好了{v}",
    "{v}准时到站了",
    "{p}下了{v}",
]
PEOPLE_CLAUSES = [
    "{p}把{f}给了{q}",
    "{p}对{q}说",
    "{p}打了{q}",
    "{p}和{q}一起去{l}",
    "{p}给{q}打电话",
    "{p}帮{q}搬家",
    "{p}请{q}吃饭",
    "{p}问{q}作业怎么写",
    "{p}在{l}遇见了{q}",
    "{p}送{q}一本书",
    "{p}告诉{q}一个秘密",
    "{p}借了{q}的{v}",
    "{p}把书给了{q}",
    "{p}把钥匙交给{q}",
    "{p}把门关上了",
    "{p}把{a}抱给了{q}",
]
STUDY_CLAUSES = [
    "我喜欢{s}",
    "{p}喜欢{s}",
    "{p}在学习{s}",
    "{s}很有意思",
    "{p}觉得{s}不难",
    "我们一起学{s}吧",
    "{p}每天花一小时学{s}",
    "{p}买了一本讲{s}的书",
]
# Everyday clauses with a wider vocabulary, so the tokenizers meet more than the cast.
ZH_DAILY_SUBJECTS = [
    "他们",
    "我们",
    "朋友们",
    "同学们",
    "邻居",
    "老师",
    "医生",
    "司机",
    "爷爷",
    "奶奶",
    "妈妈",
    "爸爸",
    "哥哥",
    "妹妹",
]
ZH_DAILY_VERBS = [
    "打扫了房间",
    "看了一场电影",
    "做了一顿晚饭",
    "写完了作业",
    "读了一本小说",
    "去河边散步",
    "在家里休息",
    "讨论了一个问题",
    "整理了书架",
    "准备了考试",
    "参加了比赛",
    "听了一首歌",
    "种了几棵树",
    "画了一幅画",
    "拍了很多照片",
    "回答了问题",
    "修改了文章",
    "打开了窗户",
    "关上了门",
    "收拾了行李",
]
ZH_DAILY_SCENES = [
    "太阳出来了",
    "外面下着雨",
    "天气很好",
    "风有点大",
    "街上很安静",
    "房间里很暖和",
    "窗外有几朵云",
    "河边有很多人",
    "城市的灯都亮了",
    "山上开满了花",
    "路上车很少",
    "教室里坐满了人",
    "空气很新鲜",
    "月亮很圆",
]
DAILY_CLAUSES = ["{ds}{dv}", "{scene}", "{ds}在{l}{dv}", "{p}的{ds}{dv}", "{scene}，{ds}{dv}"]

LEADS = ["", "", "", "{t}", "{t}", "{date}", "{clock}", "{t}{clock}"]
TAILS = ["", "", "", "", "{p}{feel}", "大家都{feel}", "第{n}次了", "花了{n}块钱"]

EN_PEOPLE = ["Xiaoming", "Xiaowang", "Xiaohong", "Anna", "Ben", "Carla", "David", "Emma"]
EN_ANIMALS = ["cat", "dog", "rabbit", "tiger", "panda", "bird", "duck", "squirrel"]
EN_FRUITS = ["apple", "banana", "watermelon", "grape", "orange", "strawberry", "peach", "pear"]
EN_VEHICLES = ["car", "train", "plane", "bicycle", "bus", "ship", "subway", "taxi"]
EN_PLACES = [
    "school",
    "the park",
    "the hospital",
    "the shop",
    "the library",
    "Beijing",
    "Shanghai",
    "the station",
]
EN_SUBJECTS = [
    "machine learning",
    "mathematics",
    "physics",
    "history",
    "music",
    "painting",
    "programming",
    "language models",
]
EN_TIMES = [
    "Today",
    "Yesterday",
    "Tomorrow",
    "In the morning",
    "In the evening",
    "At the weekend",
    "Last night",
    "Every day",
]
EN_CLAUSES = [
    "{p} fed the {a}",
    "the {a} is sleeping in the garden",
    "{p} gave the {f} to {q}",
    "this {f} is very sweet",
    "{p} took the {v} to {l}",
    "the {v} was late again",
    "{p} told {q} a secret",
    "{p} likes {s}",
    "{p} is learning {s} with {q}",
    "the {a} chased a ball across {l}",
    "{p} washed the {f} and cut it into pieces",
    "{p} waited a long time for the {v}",
    "{p} and {q} walked to {l}",
    "{p} thinks {s} is not hard",
    "the {v} stopped in front of {l}",
]
EN_ADJECTIVES = [
    "quiet",
    "busy",
    "bright",
    "dark",
    "cold",
    "warm",
    "tired",
    "happy",
    "angry",
    "careful",
    "gentle",
    "heavy",
    "light",
    "small",
    "large",
    "old",
    "young",
    "quick",
    "slow",
    "strange",
    "simple",
    "curious",
    "friendly",
    "noisy",
    "clever",
    "lazy",
    "brave",
    "shy",
    "polite",
    "hungry",
    "famous",
    "narrow",
    "wide",
    "empty",
    "crowded",
    "modern",
    "ancient",
    "wooden",
    "golden",
    "silver",
    "honest",
    "proud",
    "patient",
    "nervous",
    "lucky",
    "sudden",
    "useful",
    "early",
    "late",
    "distant",
    "local",
    "rural",
    "urban",
    "cheerful",
    "serious",
]
EN_NOUNS = [
    "teacher",
    "doctor",
    "farmer",
    "driver",
    "student",
    "painter",
    "writer",
    "engineer",
    "neighbour",
    "captain",
    "baker",
    "garden",
    "kitchen",
    "window",
    "river",
    "mountain",
    "bridge",
    "village",
    "market",
    "forest",
    "island",
    "harbour",
    "valley",
    "letter",
    "picture",
    "question",
    "answer",
    "problem",
    "lesson",
    "story",
    "journey",
    "message",
    "promise",
    "decision",
    "computer",
    "network",
    "machine",
    "language",
    "model",
    "vector",
    "table",
    "number",
    "pattern",
    "signal",
    "memory",
    "morning",
    "winter",
    "summer",
    "autumn",
    "spring",
    "holiday",
    "festival",
    "weekend",
    "evening",
    "afternoon",
    "bottle",
    "basket",
    "blanket",
    "candle",
    "pocket",
    "ticket",
    "umbrella",
    "wallet",
    "jacket",
    "notebook",
    "pencil",
]
EN_VERBS = [
    "opened",
    "closed",
    "found",
    "lost",
    "carried",
    "painted",
    "repaired",
    "visited",
    "watched",
    "followed",
    "described",
    "explained",
    "remembered",
    "forgot",
    "noticed",
    "collected",
    "delivered",
    "borrowed",
    "returned",
    "cleaned",
    "measured",
    "counted",
    "compared",
    "improved",
    "changed",
    "checked",
    "printed",
    "signed",
    "packed",
    "planted",
    "ordered",
    "cooked",
    "tasted",
    "shared",
    "answered",
    "trained",
    "predicted",
    "encoded",
    "learned",
    "studied",
]
EN_ADVERBS = [
    "slowly",
    "quickly",
    "carefully",
    "quietly",
    "happily",
    "suddenly",
    "gently",
    "finally",
    "rarely",
    "often",
    "nearly",
    "almost",
    "easily",
    "badly",
    "proudly",
    "patiently",
    "nervously",
    "loudly",
    "softly",
    "early",
]
EN_FREE = [
    "the {adj} {noun} {verb} the {noun2} {adv}",
    "a {adj} {noun} {adv} {verb} a {adj2} {noun2}",
    "{p} {verb} the {adj} {noun} in the {noun2}",
    "nobody {verb} the {noun} until the {adj} {noun2} arrived",
    "the {noun} of the {noun2} was {adj} and {adj2}",
]
EN_TAILS = [
    "",
    "",
    "",
    "and everyone was happy",
    "for the {n}th time",
    "which cost {n} dollars",
    "before it started to rain",
    "while {q} was reading",
]

# Common given-name characters for the made-up names of the training split.
NAME_CHARS = (
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红玲兰飞鹏辉宇浩然欣怡晨阳雪梅"
    "子涵思雨佳琪嘉文博海峰建国志春燕丹云凯亮斌波宁颖婷倩琳蓉慧君彤瑶"
)
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧田董潘袁"
# Rare characters used only in validation names: the char and word schemes never saw them.
RARE_CHARS = (
    "饕餮魑魅魍魉耄耋鳏孑孓彳亍踟蹰龃龉觊觎囹圄桎梏倥偬蹀躞鸱鸮蛱蝶觥筹皴皲黝黧鏖龌龊"
    "邂逅旖旎缱绻潋滟翡翠琥珀玳瑁砗磲珐琅蟾蜍蜘蛛螃蟹蝴蜻蜓霹雳魃犼獬豸貔貅麒麟鸾鹓鹔鹴"
)


@dataclass(frozen=True)
class Corpus:
    """The four splits and the parallel paragraph, as text."""

    zh_train: str
    zh_valid: str
    en_train: str
    en_valid: str


def _made_up_name(rng: random.Random, given_chars: str) -> str:
    return rng.choice(SURNAMES) + "".join(rng.choice(given_chars) for _ in range(rng.randint(1, 2)))


def _zh_fill(template: str, rng: random.Random, people: list[str]) -> str:
    p, q = rng.sample(people, 2)
    return template.format(
        p=p,
        q=q,
        a=rng.choice(ANIMALS),
        f=rng.choice(FRUITS),
        v=rng.choice(VEHICLES),
        l=rng.choice(PLACES),
        s=rng.choice(SUBJECTS),
        t=rng.choice(TIMES),
        feel=rng.choice(FEELINGS),
        n=rng.randint(2, 999),
        date=f"{rng.randint(1990, 2026)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日",
        clock=f"{rng.randint(1, 12)}点{rng.randint(0, 59)}分",
        ds=rng.choice(ZH_DAILY_SUBJECTS),
        dv=rng.choice(ZH_DAILY_VERBS),
        scene=rng.choice(ZH_DAILY_SCENES),
    )


ZH_GROUPS = [
    ANIMAL_CLAUSES,
    FRUIT_CLAUSES,
    VEHICLE_CLAUSES,
    PEOPLE_CLAUSES,
    STUDY_CLAUSES,
    DAILY_CLAUSES,
]


def _zh_sentence(rng: random.Random, given_chars: str) -> str:
    # Mostly the fixed cast, sometimes a made-up name: the cast keeps the categories dense,
    # the made-up names feed the long tail.
    people = list(PEOPLE)
    if rng.random() < 0.25:
        people.append(_made_up_name(rng, given_chars))
        people = [people[-1], *rng.sample(PEOPLE, 3)]
    clauses = [
        _zh_fill(rng.choice(rng.choice(ZH_GROUPS)), rng, people) for _ in range(rng.randint(1, 3))
    ]
    lead = _zh_fill(rng.choice(LEADS), rng, people)
    tail = _zh_fill(rng.choice(TAILS), rng, people)
    parts = ([lead] if lead else []) + clauses + ([tail] if tail else [])
    return "，".join(parts) + rng.choice("。。。！？")


def _en_sentence(rng: random.Random) -> str:
    people = list(EN_PEOPLE)
    clauses = []
    for _ in range(rng.randint(1, 2)):
        p, q = rng.sample(people, 2)
        clauses.append(
            rng.choice(EN_CLAUSES).format(
                p=p,
                q=q,
                a=rng.choice(EN_ANIMALS),
                f=rng.choice(EN_FRUITS),
                v=rng.choice(EN_VEHICLES),
                l=rng.choice(EN_PLACES),
                s=rng.choice(EN_SUBJECTS),
            )
        )
    tail = rng.choice(EN_TAILS).format(n=rng.randint(2, 999), q=rng.choice(people))
    if rng.random() < 0.5:
        clauses.append(
            rng.choice(EN_FREE).format(
                p=rng.choice(people),
                adj=rng.choice(EN_ADJECTIVES),
                adj2=rng.choice(EN_ADJECTIVES),
                noun=rng.choice(EN_NOUNS),
                noun2=rng.choice(EN_NOUNS),
                verb=rng.choice(EN_VERBS),
                adv=rng.choice(EN_ADVERBS),
            )
        )
    text = rng.choice(EN_TIMES) + ", " + " and ".join(clauses) + (" " + tail if tail else "")
    return text + rng.choice("...!?")


def _lines(make, count: int) -> str:
    return "\n".join(make() for _ in range(count)) + "\n"


def generate(
    zh_train: int = 60_000,
    zh_valid: int = 3_000,
    en_train: int = 25_000,
    en_valid: int = 1_500,
    seed: int = SEED,
) -> Corpus:
    """Sentences counts per split; the same arguments always give the same text."""
    rng = random.Random(seed)
    valid_given = NAME_CHARS + RARE_CHARS * 2
    return Corpus(
        zh_train=_lines(lambda: _zh_sentence(rng, NAME_CHARS), zh_train),
        zh_valid=_lines(lambda: _zh_sentence(rng, valid_given), zh_valid),
        en_train=_lines(lambda: _en_sentence(rng), en_train),
        en_valid=_lines(lambda: _en_sentence(rng), en_valid),
    )


PARALLEL_ZH = (
    "今天早上，小明把一个苹果给了小王，小王说这个苹果很甜。下午他们一起坐公交车去图书馆，"
    "小明在学习机器学习，小王在学习数学。图书馆门口有一只猫在晒太阳，旁边还有一只狗。"
    "小王摸了摸猫的头，那只猫叫了一声。晚上小明开着汽车去商店，买了几斤香蕉和葡萄。"
    "他觉得机器学习很有意思，我也喜欢机器学习。周末他们还要一起去公园，带上狗和一些新鲜的草莓，"
    "大家都很开心。明天早上，小红也要坐地铁去学校，她说她最爱吃桃子和西瓜。"
)
PARALLEL_EN = (
    "This morning, Xiaoming gave an apple to Xiaowang, and Xiaowang said the apple was very "
    "sweet. In the afternoon they took the bus to the library together; Xiaoming was learning "
    "machine learning and Xiaowang was learning mathematics. A cat was lying in the sun at the "
    "door of the library, with a dog beside it. Xiaowang stroked the cat's head and the cat "
    "gave a cry. In the evening Xiaoming drove his car to the shop and bought some bananas and "
    "grapes. He thinks machine learning is interesting, and I like machine learning too. At the "
    "weekend they will go to the park together again, with the dog and some fresh "
    "strawberries, and everyone will be happy. Tomorrow morning Xiaohong will take the subway to "
    "school too; she says she likes peaches and watermelon best."
)


def write(out_dir: Path, corpus: Corpus | None = None) -> list[Path]:
    """Write assets/corpus/: zh/{train,valid}.txt, en/{train,valid}.txt, parallel.json."""
    corpus = corpus or generate()
    files = {
        "zh/train.txt": corpus.zh_train,
        "zh/valid.txt": corpus.zh_valid,
        "en/train.txt": corpus.en_train,
        "en/valid.txt": corpus.en_valid,
        "parallel.json": json.dumps(
            {"zh": PARALLEL_ZH, "en": PARALLEL_EN}, ensure_ascii=False, indent=2
        )
        + "\n",
    }
    written = []
    for name, text in files.items():
        path = out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
