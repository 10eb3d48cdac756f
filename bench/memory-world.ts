/**
 * The memory section's generated world (bench/memory.ts): one person's address book and 10,000
 * things their assistant remembered, and 200 probe questions, each about one of those memories
 * (its target) and phrased the way a person would ask it later, not the way it was written:
 *
 * - another sentence altogether (every fact kind has several ways to be remembered and several
 *   ways to be asked about, chosen independently);
 * - synonyms: content words of the question replaced from this file's own thesaurus (the
 *   retriever has none; nothing here is shared with server/);
 * - other word forms: plurals, -ing and past forms;
 * - a name instead of a role, or a role instead of a name ("my dentist" remembered, "Priya"
 *   asked), linked only by the person's entry in the address book, as in a real one; family
 *   relations are not in the address book's titles, so a question naming a relative where the
 *   memory says "my sister" has nothing to go on but the rest of its words.
 *
 * The 9,800 other memories come from the same fact kinds, people, places and days, so they share
 * most of their words with the targets: the bench asks whether the right one is chosen among
 * many alike. Everything is drawn from a fixed seed: the same world on every run.
 */

export type Person = { name: string; email: string; role: string; title: string | null; company: string | null };
export type Fact = { content: string; person: Person; kind: string };
export type Probe = { question: string; target: number; transforms: string[] };
export type World = { people: Person[]; facts: Fact[]; probes: Probe[] };

function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Priya', 'Marcus', 'Elena', 'Tomás', 'Aiko', 'Jonas', 'Fatima', 'Grace', 'Oliver', 'Nadia', 'Rafael', 'Ingrid', 'Kwame', 'Sofia', 'Dmitri', 'Leila', 'Hugo', 'Mei', 'Samuel', 'Clara',
  'Yusuf', 'Hannah', 'Mateo', 'Astrid', 'Bilal', 'Chloe', 'Lars', 'Amara', 'Felix', 'Rosa', 'Anika', 'Bruno', 'Carmen', 'Daniel', 'Esther', 'Farid', 'Gemma', 'Henrik', 'Isla', 'Jamal',
  'Keiko', 'Luca', 'Maya', 'Nikolai', 'Olga', 'Pedro', 'Quentin', 'Rania', 'Stefan', 'Talia', 'Umar', 'Vera', 'Wen', 'Ximena', 'Yara', 'Zoltan', 'Beatriz', 'Cyrus', 'Dalia', 'Emil',
];
const LAST = ['Raman', 'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Becker', 'Haddad', 'Novak', 'Castillo', 'Jansen', 'Kowalski', 'Ferreira', 'Nakamura', 'Osei', 'Petrov', 'Albrecht', 'Duval', 'Sato', 'Mensah', 'Romano'];

/** Roles: professionals carry their role as their title in the address book; relatives carry none. */
const PROFESSIONALS = ['dentist', 'accountant', 'lawyer', 'doctor', 'mechanic', 'plumber', 'landlord', 'manager', 'personal trainer', 'piano teacher', 'hairdresser', 'vet', 'therapist', 'electrician', 'architect', 'tutor'];
const RELATIVES = ['sister', 'brother', 'mother', 'father', 'partner', 'daughter', 'son', 'aunt', 'cousin', 'grandmother'];
/** Friends and colleagues: titled with their jobs, which are not how the person refers to them. */
const JOBS = ['Product Designer', 'Data Analyst', 'Nurse', 'Sales Lead', 'Journalist', 'Chef', 'Pilot', 'Teacher', 'Engineer', 'Photographer'];
const FRIENDS = 120;
const COMPANIES = ['Bright Smiles Clinic', 'Keller & Partners', 'Northside Motors', 'Harbor Law', 'City Health', 'Oak Street Properties', 'Acme Corp', 'FitLab', 'Green Paws Vets', 'Studio Nine'];

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const TIMES = ['8am', '9:30am', '11am', 'noon', '2pm', '4:30pm', '6pm', '7:45pm'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const CITIES = ['Lisbon', 'Oslo', 'Kyoto', 'Montreal', 'Vienna', 'Nairobi', 'Lima', 'Seoul', 'Dublin', 'Prague', 'Austin', 'Porto', 'Krakow', 'Bergen', 'Hanoi'];
const PLACES = ['the community centre', 'the downtown studio', 'the north campus', 'the old library', 'the riverside club', 'the high street office', 'the west gym'];
const ACTIVITIES = ['swimming', 'violin', 'chess', 'judo', 'ballet', 'football', 'painting', 'coding', 'climbing', 'tennis'];
const FOODS = ['peanuts', 'shellfish', 'gluten', 'dairy', 'sesame', 'eggs', 'soy', 'kiwi'];
const DRINKS = ['coffee', 'tea', 'hot chocolate', 'espresso', 'green tea'];
const GIFTS = ['a fountain pen', 'orchids', 'a cookbook', 'noise-cancelling headphones', 'a silk scarf', 'concert tickets', 'a telescope', 'a leather wallet', 'a board game', 'running shoes'];
const OCCASIONS = ['birthday', 'anniversary', 'graduation', 'retirement', 'housewarming'];
const DOCS = ['receipts', 'bank statements', 'signed contract', 'insurance forms', 'payslips', 'passport copy', 'lease agreement'];
const VEHICLES = ['car', 'van', 'bike', 'scooter'];
const SEATS = ['aisle seat', 'window seat', 'exit row', 'front row'];
const TRANSPORT = ['flight', 'train', 'ferry', 'bus'];

/** The question side's own thesaurus: a word of the memory, and how a person might say it instead. */
const SYNONYMS: Record<string, string[]> = {
  lesson: ['class', 'session'],
  appointment: ['visit', 'slot'],
  car: ['vehicle', 'motor'],
  van: ['vehicle'],
  bike: ['bicycle'],
  flight: ['plane', 'air trip'],
  train: ['rail journey'],
  ferry: ['boat'],
  receipts: ['invoices', 'paperwork'],
  payslips: ['salary slips', 'pay stubs'],
  'bank statements': ['account statements'],
  'insurance forms': ['insurance paperwork'],
  'lease agreement': ['rental contract'],
  allergic: ['sensitive', 'intolerant'],
  loves: ['adores', 'would enjoy'],
  prefers: ['likes', 'favours'],
  repair: ['fix', 'service'],
  booked: ['reserved', 'arranged'],
  hotel: ['accommodation', 'lodging'],
  'aisle seat': ['seat by the aisle'],
  'window seat': ['seat by the window'],
  birthday: ['bday', 'big day'],
  doctor: ['GP', 'physician'],
  lawyer: ['attorney', 'solicitor'],
  mechanic: ['garage guy'],
  landlord: ['property owner'],
  manager: ['boss'],
  tutor: ['teacher'],
  apartment: ['flat'],
  deadline: ['due date', 'cut-off'],
  password: ['passcode', 'login code'],
  meeting: ['catch-up', 'call'],
  pick: ['collect', 'fetch'],
};

/** Word forms a question may use instead (the memory's form → another). */
const FORMS: Record<string, string> = {
  swimming: 'swim', painting: 'paints', climbing: 'climb', coding: 'code', lesson: 'lessons', booked: 'booking', prefers: 'preferring', needs: 'needed',
  repair: 'repairs', delivered: 'delivery', renews: 'renewal', moved: 'moving', meeting: 'meetings', receipts: 'receipt', seat: 'seats', orchids: 'orchid',
};

type Kind = {
  name: string;
  /** The memory, in one of its wordings. */
  remember: Array<(s: Slots) => string>;
  /**
   * A question about it, in one of its wordings; `who` is how the person is named there. `uses`:
   * the details the question gives, which must single the target out among the memories of the
   * same kind about the same person (a question that several memories answer equally has no one
   * target, and is not asked).
   */
  ask: Array<{ uses: Array<keyof Slots>; text: (s: Slots, who: string) => string }>;
  /** Whose fact it is: a professional or a relative or a child. */
  of: 'professional' | 'relative' | 'child' | 'self';
};

type Slots = {
  p: Person; who: string; day: string; time: string; month: string; date: string; city: string; place: string; activity: string; food: string; drink: string; gift: string;
  occasion: string; doc: string; vehicle: string; seat: string; transport: string; cuisine: string; restaurant: string; street: string; book: string; project: string; code: string; n: number;
};

const CUISINES = ['Thai', 'Ethiopian', 'Georgian', 'Peruvian', 'Sichuan', 'Lebanese', 'Basque', 'Korean', 'Oaxacan', 'Sardinian'];
const RESTAURANT_WORDS = ['Lantern', 'Fig', 'Copper', 'Saffron', 'Harbour', 'Juniper', 'Olive', 'Ember', 'Willow', 'Pepper', 'Marigold', 'Tamarind'];
const STREETS = ['Elm Street', 'Quay Road', 'Birch Lane', 'Canal Walk', 'Mill Road', 'Hill Terrace', 'Station Square', 'Rose Avenue', 'Dock Street', 'Park Row'];
const BOOKS = ['The Overstory', 'Middlemarch', 'Piranesi', 'The Dispossessed', 'Stoner', 'Pachinko', 'Circe', 'Klara and the Sun', 'The Remains of the Day', 'Hyperion', 'Beloved', 'Solaris'];
const PROJECTS = ['Atlas', 'Bluebird', 'Cobalt', 'Driftwood', 'Evergreen', 'Falcon', 'Granite', 'Horizon', 'Ivory', 'Juniper', 'Kestrel', 'Lighthouse', 'Meridian', 'Nimbus', 'Orchard'];

const my = (p: Person) => `my ${p.role}`;
const Cap = (t: string) => t[0].toUpperCase() + t.slice(1);

/*
 * Each kind: how often it is remembered (weight), whose it is, its wordings, and its questions.
 * The wordings and questions were written apart, as a person writing a note and another asking
 * about it weeks later would: they share what the fact is about (a name, a place, a title) as
 * often as real questions do, and no more.
 */
const KINDS: Array<Kind & { weight: number }> = [
  {
    name: 'lesson', of: 'child', weight: 6,
    remember: [(s) => `${s.who} has a ${s.activity} lesson every ${s.day} at ${s.time} at ${s.place}`, (s) => `${s.who}'s ${s.activity} lesson moved to ${s.day}s, ${s.time}, ${s.place}`],
    ask: [
      { uses: ['activity', 'day'], text: (s, w) => `What time is ${w}'s ${s.activity} lesson on ${s.day}?` },
      { uses: ['activity', 'day'], text: (s, w) => `Where do I take ${w} for ${s.activity} on ${s.day}?` },
      { uses: ['activity', 'place'], text: (s, w) => `Which day does ${w} have ${s.activity} at ${s.place}?` },
    ],
  },
  {
    name: 'appointment', of: 'professional', weight: 5,
    remember: [(s) => `Appointment with ${s.who} on ${s.day}, ${s.date}, at ${s.time}`, (s) => `${Cap(s.who)} booked me in for ${s.date} at ${s.time}`],
    ask: [
      { uses: ['date'], text: (s, w) => `What time is the appointment with ${w} on ${s.date}?` },
      { uses: ['month'], text: (s, w) => `When in ${s.month} is my appointment with ${w}?` },
    ],
  },
  {
    name: 'documents', of: 'professional', weight: 5,
    remember: [(s) => `${Cap(s.who)} needs the ${s.doc} by ${s.date}`, (s) => `Send ${s.who} the ${s.doc} before ${s.date}`],
    ask: [
      { uses: ['doc'], text: (s, w) => `When is the deadline for the ${s.doc} for ${w}?` },
      { uses: ['month'], text: (s, w) => `What does ${w} need from me in ${s.month}?` },
    ],
  },
  {
    name: 'allergy', of: 'relative', weight: 6,
    remember: [(s) => `${Cap(s.who)} is allergic to ${s.food}`, (s) => `${Cap(s.who)} cannot eat ${s.food}: allergic since childhood`],
    ask: [
      { uses: [], text: (_s, w) => `Is ${w} allergic to anything I should avoid when cooking?` },
      { uses: ['food'], text: (s, w) => `Can ${w} have ${s.food}?` },
    ],
  },
  {
    name: 'gift', of: 'relative', weight: 10,
    remember: [(s) => `${Cap(s.who)} loves ${s.gift}: good ${s.occasion} present`, (s) => `Idea for ${s.who}'s ${s.occasion}: ${s.gift}`],
    ask: [
      { uses: ['occasion'], text: (s, w) => `What should I get ${w} for the ${s.occasion}?` },
      { uses: [], text: (_s, w) => `Any present ideas for ${w}?` },
    ],
  },
  {
    name: 'drink', of: 'relative', weight: 6,
    remember: [(s) => `${Cap(s.who)} prefers ${s.drink} with oat milk, no sugar`, (s) => `${Cap(s.who)} takes ${s.drink} black in the morning`],
    ask: [
      { uses: ['drink'], text: (s, w) => `How does ${w} like their ${s.drink}?` },
      { uses: [], text: (_s, w) => `What should I make ${w} to drink when they visit?` },
    ],
  },
  {
    name: 'travel', of: 'self', weight: 8,
    remember: [(s) => `Booked a ${s.transport} to ${s.city} on ${s.date}, ${s.seat}`, (s) => `${s.city} trip on ${s.date}: ${s.transport} booked, asked for the ${s.seat}`],
    ask: [
      { uses: ['city', 'transport'], text: (s) => `Which seat did I get on the ${s.transport} to ${s.city}?` },
      { uses: ['city', 'month'], text: (s) => `When exactly do I leave for ${s.city} in ${s.month}?` },
    ],
  },
  {
    name: 'vehicle', of: 'professional', weight: 3,
    remember: [(s) => `${Cap(s.who)} will repair the ${s.vehicle} on ${s.date}; quote #${1000 + s.n}`, (s) => `The ${s.vehicle} goes to ${s.who} for repair on ${s.date}`],
    ask: [
      { uses: ['vehicle', 'month'], text: (s, w) => `When in ${s.month} is ${w} fixing the ${s.vehicle}?` },
      { uses: ['vehicle', 'date'], text: (s, w) => `What did ${w} say about the ${s.vehicle} for ${s.date}?` },
    ],
  },
  {
    name: 'meeting', of: 'professional', weight: 5,
    remember: [(s) => `Weekly meeting with ${s.who} every ${s.day} at ${s.time} at ${s.place}`, (s) => `${Cap(s.who)} wants the ${s.day} meeting moved to ${s.time}`],
    ask: [
      { uses: ['day'], text: (s, w) => `What time is the ${s.day} meeting with ${w}?` },
      { uses: ['place'], text: (s, w) => `When do I meet ${w} at ${s.place}?` },
    ],
  },
  {
    name: 'pickup', of: 'child', weight: 5,
    remember: [(s) => `Pick up ${s.who} from ${s.activity} at ${s.time} on ${s.day}s`, (s) => `${Cap(s.who)} finishes ${s.activity} at ${s.time} on ${s.day}; pick up at ${s.place}`],
    ask: [{ uses: ['activity', 'day'], text: (s, w) => `What time do I pick up ${w} from ${s.activity} on ${s.day}?` }],
  },
  {
    name: 'restaurant', of: 'relative', weight: 8,
    remember: [(s) => `${Cap(s.who)} recommended ${s.restaurant}, a ${s.cuisine} restaurant on ${s.street}`, (s) => `${s.restaurant} on ${s.street}: the ${s.cuisine} place ${s.who} loves`],
    ask: [
      { uses: ['cuisine'], text: (s, w) => `What was the ${s.cuisine} restaurant ${w} told me about?` },
      { uses: ['street'], text: (s, w) => `Which restaurant on ${s.street} did ${w} recommend?` },
    ],
  },
  {
    name: 'book', of: 'relative', weight: 6,
    remember: [(s) => `${Cap(s.who)} lent me ${s.book}; give it back by ${s.date}`, (s) => `Borrowed ${s.book} from ${s.who}`],
    ask: [
      { uses: ['book'], text: (s, w) => `Do I still have ${w}'s copy of ${s.book}?` },
      { uses: ['month'], text: (s, w) => `Which book do I have to return to ${w} in ${s.month}?` },
    ],
  },
  {
    name: 'address', of: 'relative', weight: 5,
    remember: [(s) => `${Cap(s.who)} moved to ${s.n % 90 + 1} ${s.street}, ${s.city}`, (s) => `New address for ${s.who}: ${s.n % 90 + 1} ${s.street} in ${s.city}`],
    ask: [
      { uses: ['city'], text: (s, w) => `Where does ${w} live in ${s.city} now?` },
      { uses: [], text: (_s, w) => `What is ${w}'s new address?` },
    ],
  },
  {
    name: 'project', of: 'professional', weight: 8,
    remember: [(s) => `Project ${s.project}: ${s.who} owns the launch, due ${s.date}`, (s) => `${s.project} deadline is ${s.date}; ${s.who} signs it off`],
    ask: [
      { uses: ['project'], text: (s) => `When is the ${s.project} deadline?` },
      { uses: ['project'], text: (s, w) => `Who signs off ${s.project}, ${w}? And by when?` },
    ],
  },
  {
    name: 'wifi', of: 'relative', weight: 3,
    remember: [(s) => `The wifi password at ${s.who}'s place is ${s.code}`, (s) => `${Cap(s.who)}'s home wifi: ${s.code}`],
    ask: [{ uses: [], text: (_s, w) => `What's the wifi password at ${w}'s?` }],
  },
];

export function generateWorld(count = 10_000, probes = 200, seed = 44): World {
  const rand = generator(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  // The address book: professionals (titled), relatives (untitled), and children (named only).
  const people: Person[] = [];
  const names = new Set<string>();
  const fresh = () => {
    for (;;) {
      const name = `${pick(FIRST)} ${pick(LAST)}`;
      if (!names.has(name)) {
        names.add(name);
        return name;
      }
    }
  };
  const email = (name: string) => `${name.toLowerCase().normalize('NFD').replace(/[^a-z ]/g, '').replace(' ', '.')}@example.net`;
  for (const role of PROFESSIONALS) {
    const name = fresh();
    people.push({ name, email: email(name), role, title: role.replace(/\b\w/g, (c) => c.toUpperCase()), company: pick(COMPANIES) });
  }
  for (const role of RELATIVES) {
    const name = fresh();
    people.push({ name, email: email(name), role, title: null, company: null });
  }
  for (let i = 0; i < FRIENDS; i++) {
    const name = fresh();
    people.push({ name, email: email(name), role: i % 3 ? 'friend' : 'colleague', title: pick(JOBS), company: pick(COMPANIES) });
  }
  const children = people.filter((p) => p.role === 'daughter' || p.role === 'son');
  const professionals = people.filter((p) => PROFESSIONALS.includes(p.role));
  // Relatives and friends: the people gifts, drinks and allergies are remembered about.
  const close = people.filter((p) => !PROFESSIONALS.includes(p.role));
  const byKind = (k: Kind) => (k.of === 'professional' ? professionals : k.of === 'relative' ? close : k.of === 'child' ? children : people);

  const total = KINDS.reduce((sum, k) => sum + k.weight, 0);
  const weighted = () => {
    let r = rand() * total;
    for (const k of KINDS) if ((r -= k.weight) < 0) return k;
    return KINDS[KINDS.length - 1];
  };
  const facts: Fact[] = [];
  const slots: Slots[] = [];
  const kinds: Kind[] = [];
  for (let n = 0; n < count; n++) {
    const kind = weighted();
    const p = pick(byKind(kind));
    const month = pick(MONTHS);
    // A memory names the person by name, by role ("my dentist"), or both.
    const naming = rand();
    const first = p.name.split(' ')[0];
    const hasRole = p.role !== 'friend' && p.role !== 'colleague';
    const who = kind.of === 'self' ? 'I' : !hasRole ? (naming < 0.6 ? first : p.name) : naming < 0.4 ? first : naming < 0.75 ? my(p) : `${first} (${my(p)})`;
    const s: Slots = {
      p, who, day: pick(DAYS), time: pick(TIMES), month, date: `${month} ${1 + Math.floor(rand() * 28)}`, city: pick(CITIES), place: pick(PLACES), activity: pick(ACTIVITIES),
      food: pick(FOODS), drink: pick(DRINKS), gift: pick(GIFTS), occasion: pick(OCCASIONS), doc: pick(DOCS), vehicle: pick(VEHICLES), seat: pick(SEATS), transport: pick(TRANSPORT),
      cuisine: pick(CUISINES), restaurant: `${pick(RESTAURANT_WORDS)} ${pick(['Kitchen', 'House', 'Table', 'Room', 'Bar'])}`, street: pick(STREETS), book: pick(BOOKS), project: pick(PROJECTS),
      code: `${pick(RESTAURANT_WORDS).toLowerCase()}-${1000 + Math.floor(rand() * 9000)}`, n,
    };
    facts.push({ content: Cap(pick(kind.remember)(s)), person: p, kind: kind.name });
    slots.push(s);
    kinds.push(kind);
  }

  // Targets spread over the whole history; a memory is a target only when some question of its
  // kind singles it out among the memories of that kind about the same person.
  // A fact about the user themself (travel) is told apart from all facts of its kind.
  const keyOf = (n: number) => (kinds[n].of === 'self' ? kinds[n].name : `${kinds[n].name}|${slots[n].p.name}`);
  const same = new Map<string, number[]>();
  for (let n = 0; n < count; n++) {
    same.set(keyOf(n), [...(same.get(keyOf(n)) ?? []), n]);
  }
  const askable = (n: number) =>
    kinds[n].ask.filter((a) => (same.get(keyOf(n)) ?? []).filter((m) => a.uses.every((u) => slots[m][u] === slots[n][u])).length === 1);
  const targets = new Set<number>();
  while (targets.size < probes) {
    const n = Math.floor(rand() * count);
    if (askable(n).length) targets.add(n);
  }
  const out: Probe[] = [];
  for (const target of [...targets].sort((a, b) => a - b)) {
    const s = slots[target];
    const kind = kinds[target];
    const transforms: string[] = ['reworded'];
    const first = s.p.name.split(' ')[0];
    // The question names the person the other way from the memory where it can: the name for a role, the role for a name.
    let who = first;
    const hasRole = s.p.role !== 'friend' && s.p.role !== 'colleague';
    if (kind.of !== 'self' && hasRole) {
      if (s.who.startsWith('my ')) {
        who = first;
        transforms.push('name-for-role');
      } else if (!s.who.includes('(') && rand() < 0.5) {
        who = my(s.p);
        transforms.push('role-for-name');
      }
    }
    let question = pick(askable(target)).text(s, who);
    // Synonyms for up to two words the thesaurus knows, and another form for one word.
    let swapped = 0;
    for (const [word, alternatives] of Object.entries(SYNONYMS)) {
      if (swapped >= 2) break;
      const re = new RegExp(`\\b${word}\\b`, 'i');
      if (re.test(question) && rand() < 0.8) {
        question = question.replace(re, pick(alternatives));
        swapped++;
      }
    }
    if (swapped) transforms.push('synonyms');
    for (const [word, form] of Object.entries(FORMS)) {
      const re = new RegExp(`\\b${word}\\b`, 'i');
      if (re.test(question)) {
        question = question.replace(re, form);
        transforms.push('word-form');
        break;
      }
    }
    out.push({ question, target, transforms });
  }
  return { people, facts, probes: out };
}
