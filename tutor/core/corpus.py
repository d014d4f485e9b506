"""The project's own corpus: a small generated world, said to be one.

Nothing here is scraped; every sentence is built from the word lists and clause patterns
below with a fixed seed, so the same code always writes the same text. The world is
designed so that what the lesson shows happens for the reason the lesson gives:

- Word frequencies follow Zipf's law within each kind and across kinds (a few words are
  very common, most are rare), as in real text; BPE merges, and so IDs, follow frequency
  and spelling, not kind.
- Many clauses accept a word of any kind (a person, an animal, a fruit, a vehicle), so how
  strongly kinds separate after training is measured, not built in. Words of one kind
  still share their own clauses (fruits are eaten, vehicles are ridden), which makes
  clustering stronger than in real text; the lesson says so.
- Relations hold across contexts: gendered nouns and names are followed by the pronoun
  that agrees with them (他/她, 他的/她的) in every clause that has one, and a country and
  its capital share their language in every clause that names it. The relation is never
  written as a pair ("国王和王后"), so an analogy that works must work through it.
- Made-up names draw their given-name characters from a long-tailed distribution (common
  characters by Zipf, and now and then any rarer ideograph), so the validation split meets
  characters the training split never saw, by chance alone; no list is kept for it.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SEED = 20261129
ZIPF_EXPONENT = 1.0  # frequency of the r-th most common word ~ 1 / r


class Zipf:
    """Draw from a list whose r-th item is drawn with weight 1 / r^s (first item commonest)."""

    def __init__(self, items: Sequence[str], exponent: float = ZIPF_EXPONENT) -> None:
        self.items = list(items)
        self._cum = list(itertools.accumulate(1 / (r + 1) ** exponent for r in range(len(items))))

    def __call__(self, rng: random.Random) -> str:
        return rng.choices(self.items, cum_weights=self._cum)[0]


# The lesson's kinds, each in its own frequency order (the lesson's words among them).
# Named people carry a gender, so the pronouns that follow them agree.
PEOPLE = ["小明", "小红", "小王", "小张", "小李", "小刚", "小芳", "小林", "小周", "小陈"]
FEMALE_NAMES = frozenset({"小红", "小李", "小芳", "小林"})
ANIMALS = ["猫", "狗", "兔子", "老虎", "熊猫", "鸭子", "猴子", "松鼠", "大象", "狮子", "小鸟"]
FRUITS = ["苹果", "香蕉", "西瓜", "橘子", "葡萄", "草莓", "桃子", "梨", "芒果", "樱桃", "柠檬"]
VEHICLES = ["汽车", "自行车", "火车", "飞机", "地铁", "公交车", "出租车", "轮船", "卡车", "摩托车"]
# Gendered nouns: (male, female, domain, age). Pairs share domain and age; only the
# pronouns that agree with them tell male from female.
GENDERED = [
    ("男人", "女人", "common", "adult"),
    ("爸爸", "妈妈", "family", "adult"),
    ("先生", "女士", "polite", "adult"),
    ("哥哥", "姐姐", "family", "young"),
    ("男孩", "女孩", "common", "young"),
    ("国王", "王后", "royal", "adult"),
    ("爷爷", "奶奶", "family", "old"),
    ("儿子", "女儿", "family", "young"),
    ("王子", "公主", "royal", "young"),
    ("叔叔", "阿姨", "family", "adult"),
]
# Country, capital, language: a country and its capital share the language wherever it
# is named, and differ by kind (a country is a 国家, a capital a 城市).
COUNTRIES = [
    ("中国", "北京", "中文"),
    ("日本", "东京", "日语"),
    ("法国", "巴黎", "法语"),
    ("英国", "伦敦", "英语"),
    ("德国", "柏林", "德语"),
    ("俄罗斯", "莫斯科", "俄语"),
    ("韩国", "首尔", "韩语"),
    ("西班牙", "马德里", "西班牙语"),
    ("埃及", "开罗", "阿拉伯语"),
    ("泰国", "曼谷", "泰语"),
]
PLACES = ["学校", "公园", "商店", "医院", "图书馆", "超市", "车站", "广场", "电影院", "博物馆"]
SUBJECTS = ["机器学习", "数学", "音乐", "历史", "物理", "画画", "编程", "英语", "化学", "地理"]
TIMES = ["今天", "昨天", "早上", "晚上", "明天", "周末", "下午", "上午", "中午", "去年"]
FEELINGS = ["很开心", "很高兴", "有点累", "很紧张", "很满意", "有点饿", "很难过", "很生气"]
THINGS = ["书", "钥匙", "礼物", "信", "雨伞", "照片", "杯子", "帽子", "手机", "本子"]

# What follows a word tells the model what kind it is; these follow only one kind.
ANIMAL_TAILS = [
    "在睡觉",
    "叫了一声",
    "饿了",
    "在院子里跑来跑去",
    "在草地上晒太阳",
    "生病了",
    "躲在树下",
    "摇了摇尾巴",
    "吃饱了就去睡觉",
    "被带去看兽医",
]
FRUIT_TAILS = [
    "很甜",
    "已经熟了",
    "放在冰箱里",
    "的味道很好",
    "被切成了几块",
    "有点酸",
    "洗干净了",
    "一斤五块钱",
    "坏了一半",
    "是从果园里摘的",
]
VEHICLE_TAILS = [
    "开得很快",
    "晚点了",
    "停在门口",
    "坏在路上了",
    "准时到站了",
    "上人很多",
    "开过来了",
    "刚加满了油",
    "在路口转弯",
    "需要修理了",
]
# ... and these follow any of the four kinds: shared contexts.
SHARED_TAILS = [
    "在那里",
    "不见了",
    "出现在电视上",
    "在照片的左边",
    "很有名",
    "又回来了",
    "看起来很新",
    "让大家很惊讶",
    "就在前面",
    "被写进了故事里",
]
SHARED_CLAUSES = [
    "{x}{shared}",
    "我看见{x}{shared}",
    "{p}说那个{x}{shared}",
    "照片上的{x}{shared}",
    "{p}画了{x}",
    "{p}想起了{x}",
    "大家都在谈论{x}",
    "{p}梦见了{x}",
]
# A person: what follows a name or a gendered noun is what people do, and the pronoun
# that agrees with them ({he}: 他 or 她).
PERSON_CLAUSES = [
    "{h}说{he}{feel}",
    "{h}觉得{he}的{thing}不见了",
    "{h}把{obj}给了{q}",
    "{h}对{q}说{he}{feel}",
    "{h}给{q}打了电话",
    "{h}请{q}吃饭",
    "{h}在{place}遇见了{q}",
    "{h}告诉{q}{he}明天去{place}",
    "{h}把{he}的{thing}借给了{q}",
    "{h}打了{q}",
    "{h}和{q}一起去{place}",
    "{h}坐{vehicle}去{place}，{he}{feel}",
    "{h}喂了{animal}，{he}{feel}",
    "{h}吃了一个{fruit}，{he}{feel}",
    "{h}喜欢{subject}，{he}每天都学",
    "{h}在学习{subject}",
]
# Gendered nouns add their domain and age after the word, then the agreeing pronoun.
DOMAIN_TAILS = {
    "royal": ["住在王宫里", "戴上了王冠", "坐在宝座上", "接见了大臣", "骑马走出了城堡"],
    "family": ["在家里做饭", "给家人讲故事", "打扫了房间", "陪家人吃晚饭", "在阳台上浇花"],
    "common": ["在街上散步", "在排队买票", "去银行办事", "在路边等人", "在公园里跑步"],
    "polite": ["请坐", "您好", "请这边走", "请稍等", "请出示证件"],
}
AGE_TAILS = {
    "young": ["还在上学", "在玩玩具", "去上课了", "刚放学回家", "在写作业"],
    "adult": ["每天去上班", "刚下班回家", "在开会", "在加班", "出差去了"],
    "old": ["已经退休了", "头发都白了", "在打太极拳", "在下象棋", "在听收音机"],
}
GENDERED_CLAUSES = [
    "{n}{domain}，{he}{feel}",
    "{n}{age}，{he}{feel}",
    "那位{n}{domain}",
    "{n}说{he}{age}",
    "{n}说{he}的{thing}不见了",
    "{n}{age}，{his}{thing}放在桌上",
    "这位{n}{domain}，大家都认识{him}",
]
COUNTRY_CLAUSES = [
    "{country}是一个国家",
    "{country}的人说{lang}",
    "{country}的首都是{capital}",
    "{p}去过{country}，那里的人说{lang}",
    "{country}是一个很大的国家",
    "{p}想去{country}学{lang}",
]
CAPITAL_CLAUSES = [
    "{capital}是一座城市",
    "{capital}的人说{lang}",
    "{capital}是一座很大的城市",
    "{p}住在{capital}，那里的人说{lang}",
    "{capital}的街上很热闹",
    "{p}在{capital}学{lang}",
]
DAILY_CLAUSES = [
    "{time}天气很好",
    "外面下着雨",
    "{p}{feel}",
    "我喜欢{subject}",
    "{p}喜欢{subject}",
    "{subject}很有意思",
    "{p}在{place}",
    "{p}去了{place}",
    "我们一起去{place}吧",
]
LEADS = ["", "", "", "{time}", "{time}", "{date}", "{clock}", "{time}{clock}"]
TAILS = ["", "", "", "", "大家都{feel}", "第{n}次了", "花了{n}块钱", "{p}也{feel}"]

# Given-name characters, commonest first; the last ones are so rare that some appear
# only in the validation split.
NAME_CHARS = (
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红玲兰飞鹏辉宇浩然欣怡晨阳雪梅"
    "子涵思雨佳琪嘉文博海峰建国志春燕丹云凯亮斌波宁颖婷倩琳蓉慧君彤瑶鑫晶莉琴瑞婕璐薇雅"
    "琦蕾琼蓓珊菲露淑惠丰俊豪泽轩睿哲翔毅诚启航骏铭硕楠森瀚霖锦程旭晖昊昕晓岚澜沐珂瑜璇"
    "霏馨蔓芸芷若汐妍婉婧娴媛姗璟瑾琛瑄璞玥珞琬瑗璨钧锐铎淼焱垚犇品轶逸凡帆远航健康乐安"
    "永福贵荣盛昌隆兴旺德仁义礼智信忠孝廉耻勤俭恭让温良谦和顺达通泰运祥瑞吉庆喜悦怡乐"
    "彧翀玮珩骞赟昶旻昀晔炜烨煜熠瑀琰珺玙珈琇琤瑢璠璘瓒芃苒茗莘菁萱蓁蔚蕴藜蘅芮荟湉沅"
    "泓淇渝湛漪澄灏冉甯翊翎翮耘聿臻舜芊苓茜荃莺菡葳蒨婳嫣嬿姝妤娉婵嫱姣缇绮绾缃纨绡"
)
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧田董潘袁"
# ... and the long tail beyond them: a few given-name characters in a hundred are drawn from
# every other CJK ideograph (U+4E00..U+9FFF), each one so rare that many appear only once,
# and some only in the validation split, as rare name characters do in real text.
RARE_NAME_SHARE = 0.03
RARE_NAME_CHARS = "".join(
    ch for ch in map(chr, range(0x4E00, 0xA000)) if ch not in NAME_CHARS and ch not in SURNAMES
)


@dataclass(frozen=True)
class Corpus:
    """The four splits and the parallel paragraph, as text."""

    zh_train: str
    zh_valid: str
    en_train: str
    en_valid: str


def _unique(chars: str) -> str:
    return "".join(dict.fromkeys(chars))


class _World:
    """The generator's draws: every word comes from its own Zipf distribution."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.people = Zipf(PEOPLE)
        self.animal = Zipf(ANIMALS)
        self.fruit = Zipf(FRUITS)
        self.vehicle = Zipf(VEHICLES)
        self.gendered = Zipf([str(i) for i in range(len(GENDERED))])
        self.country = Zipf([str(i) for i in range(len(COUNTRIES))])
        self.place = Zipf(PLACES)
        self.subject = Zipf(SUBJECTS)
        self.time = Zipf(TIMES)
        self.feel = Zipf(FEELINGS)
        self.thing = Zipf(THINGS)
        self.surname = Zipf(SURNAMES)
        self.given = Zipf(_unique(NAME_CHARS))

    def given_char(self) -> str:
        if self.rng.random() < RARE_NAME_SHARE:
            return self.rng.choice(RARE_NAME_CHARS)
        return self.given(self.rng)

    def made_up_name(self) -> tuple[str, bool]:
        given = "".join(self.given_char() for _ in range(self.rng.randint(1, 2)))
        return self.surname(self.rng) + given, self.rng.random() < 0.5

    def person(self) -> tuple[str, bool]:
        """A name and whether she is female: mostly the cast, a third of the time made up."""
        if self.rng.random() < 0.35:
            return self.made_up_name()
        name = self.people(self.rng)
        return name, name in FEMALE_NAMES

    def any_kind(self) -> str:
        """A word of one of the four kinds, kinds by their own Zipf weights."""
        kind = self.rng.choices((self.people, self.animal, self.fruit, self.vehicle), (4, 3, 2, 2))
        return kind[0](self.rng)

    def fill(self, template: str, **given: str) -> str:
        rng = self.rng
        q = self.person()[0]
        while q == given.get("h"):  # nobody gives a thing to themselves
            q = self.person()[0]
        values = {
            "p": self.person()[0],
            "q": q,
            "x": self.any_kind(),
            "shared": rng.choice(SHARED_TAILS),
            "animal": self.animal(rng),
            "fruit": self.fruit(rng),
            "vehicle": self.vehicle(rng),
            "place": self.place(rng),
            "subject": self.subject(rng),
            "time": self.time(rng),
            "feel": self.feel(rng),
            "thing": self.thing(rng),
            "obj": rng.choice((self.fruit, self.animal, self.thing))(rng),
            "n": str(rng.randint(2, 999)),
            "date": f"{rng.randint(1990, 2026)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日",
            "clock": f"{rng.randint(1, 12)}点{rng.randint(0, 59)}分",
        }
        values.update(given)
        return template.format(**values)

    def _pronouns(self, female: bool) -> dict[str, str]:
        he = "她" if female else "他"
        return {"he": he, "his": he + "的", "him": he}

    def clause(self) -> str:
        rng = self.rng
        kind = rng.choices(
            ("person", "gendered", "kind", "shared", "place", "daily"), (5, 4, 4, 3, 2, 2)
        )[0]
        if kind == "person":
            name, female = self.person()
            return self.fill(rng.choice(PERSON_CLAUSES), h=name, **self._pronouns(female))
        if kind == "gendered":
            male, female, domain, age = GENDERED[int(self.gendered(rng))]
            is_female = rng.random() < 0.5
            return self.fill(
                rng.choice(GENDERED_CLAUSES),
                n=female if is_female else male,
                domain=rng.choice(DOMAIN_TAILS[domain]),
                age=rng.choice(AGE_TAILS[age]),
                **self._pronouns(is_female),
            )
        if kind == "kind":
            word, tails = rng.choice(
                (
                    (self.animal, ANIMAL_TAILS),
                    (self.fruit, FRUIT_TAILS),
                    (self.vehicle, VEHICLE_TAILS),
                )
            )
            lead = rng.choice(("", "那个", "{p}的"))
            return self.fill(lead + word(rng) + rng.choice(tails))
        if kind == "shared":
            return self.fill(rng.choice(SHARED_CLAUSES))
        if kind == "place":
            country, capital, lang = COUNTRIES[int(self.country(rng))]
            template = rng.choice(rng.choice((COUNTRY_CLAUSES, CAPITAL_CLAUSES)))
            return self.fill(template, country=country, capital=capital, lang=lang)
        return self.fill(rng.choice(DAILY_CLAUSES))

    def sentence(self) -> str:
        clauses = [self.clause() for _ in range(self.rng.randint(1, 3))]
        lead = self.fill(self.rng.choice(LEADS))
        tail = self.fill(self.rng.choice(TAILS))
        parts = ([lead] if lead else []) + clauses + ([tail] if tail else [])
        return "，".join(parts) + self.rng.choice("。。。！？")


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


def _lines(make: Callable[[], str], count: int) -> str:
    return "\n".join(make() for _ in range(count)) + "\n"


def generate(
    zh_train: int = 60_000,
    zh_valid: int = 3_000,
    en_train: int = 25_000,
    en_valid: int = 1_500,
    seed: int = SEED,
) -> Corpus:
    """Sentence counts per split; the same arguments always give the same text.

    Both Chinese splits come from one world drawn in order, so the validation split differs
    from training only by chance: the characters it alone has are the name tail's rarest.
    """
    rng = random.Random(seed)
    world = _World(rng)
    return Corpus(
        zh_train=_lines(world.sentence, zh_train),
        zh_valid=_lines(world.sentence, zh_valid),
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
